import Foundation

/// A plain SVG chart of a run over time: one panel per series, stacked, sharing the time axis.
/// Pure: the same series give the same bytes.
public struct SVGChart: Sendable {
    public struct Series: Sendable {
        public var title: String
        public var unit: String
        /// (seconds since the start, value) in time order.
        public var points: [(time: Double, value: Double)]

        public init(title: String, unit: String, points: [(time: Double, value: Double)]) {
            self.title = title
            self.unit = unit
            self.points = points
        }
    }

    public var title: String
    public var series: [Series]

    static let width = 800.0
    static let panelHeight = 160.0
    static let margin = (left: 70.0, right: 20.0, top: 40.0, gap: 40.0)
    static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]

    public init(title: String, series: [Series]) {
        self.title = title
        self.series = series
    }

    public var svg: String {
        let height = Self.margin.top + Double(series.count) * (Self.panelHeight + Self.margin.gap)
        let duration = max(series.flatMap { $0.points.map(\.time) }.max() ?? 1, 1)
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(Self.width)) \(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(Int(Self.width / 2))" y="22" text-anchor="middle" font-size="15">\(Self.escape(title))</text>

        """
        for (index, one) in series.enumerated() {
            let top = Self.margin.top + Double(index) * (Self.panelHeight + Self.margin.gap)
            out += panel(one, top: top, duration: duration, color: Self.colors[index % Self.colors.count])
        }
        return out + "</svg>\n"
    }

    private func panel(_ series: Series, top: Double, duration: Double, color: String) -> String {
        let left = Self.margin.left, right = Self.width - Self.margin.right
        let bottom = top + Self.panelHeight
        let peak = series.points.map(\.value).max() ?? 0
        let ceiling = Self.niceCeiling(peak)
        func x(_ t: Double) -> Double { left + (right - left) * t / duration }
        func y(_ v: Double) -> Double { bottom - Self.panelHeight * v / ceiling }
        var out = "<g>\n"
        out += "<text x=\"\(Self.format(left))\" y=\"\(Self.format(top - 8))\">\(Self.escape(series.title)) (\(Self.escape(series.unit)))</text>\n"
        out += "<rect x=\"\(Self.format(left))\" y=\"\(Self.format(top))\" width=\"\(Self.format(right - left))\" "
            + "height=\"\(Self.format(Self.panelHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
        for step in 0...4 {
            let value = ceiling * Double(step) / 4
            out += "<text x=\"\(Self.format(left - 6))\" y=\"\(Self.format(y(value) + 4))\" text-anchor=\"end\">\(Self.label(value))</text>\n"
        }
        for step in 0...5 {
            let t = duration * Double(step) / 5
            out += "<text x=\"\(Self.format(x(t)))\" y=\"\(Self.format(bottom + 15))\" text-anchor=\"middle\">\(Self.label(t)) s</text>\n"
        }
        if !series.points.isEmpty {
            let path = series.points.map { "\(Self.format(x($0.time))),\(Self.format(y($0.value)))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(path)\"/>\n"
        }
        return out + "</g>\n"
    }

    /// 1, 2 or 5 times a power of ten, at or above `value` (1 for nothing).
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        while power > value { power /= 10 }
        for factor in [1.0, 2, 5, 10] where power * factor >= value { return power * factor }
        return power * 10
    }

    static func label(_ value: Double) -> String {
        if value == value.rounded() { return String(Int(value)) }
        return format(value)
    }

    static func format(_ value: Double) -> String {
        let scaled = (value * 100).rounded() / 100
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

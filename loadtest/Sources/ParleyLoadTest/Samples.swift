import Foundation

/// Measurements in seconds and their percentiles, nearest-rank (the smallest value with at least
/// p % of the samples at or below it).
public struct Samples: Sendable, Equatable {
    public private(set) var values: [Double]

    public init(_ values: [Double] = []) { self.values = values }

    public var count: Int { values.count }

    public mutating func append(_ seconds: Double) { values.append(seconds) }

    public func percentile(_ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// p50, p95, p99 and the largest, in milliseconds.
    public var summary: PercentileSummary {
        PercentileSummary(count: count, p50: percentile(50).map(\.milliseconds), p95: percentile(95).map(\.milliseconds),
                          p99: percentile(99).map(\.milliseconds), max: values.max().map(\.milliseconds))
    }
}

/// Percentiles of a set of times, in milliseconds; nil where there were no samples.
public struct PercentileSummary: Sendable, Equatable, Codable {
    public var count: Int
    public var p50: Double?
    public var p95: Double?
    public var p99: Double?
    public var max: Double?

    public init(count: Int, p50: Double?, p95: Double?, p99: Double?, max: Double?) {
        self.count = count
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
        self.max = max
    }
}

extension PercentileSummary {
    /// `  <name>  p50 …  p95 …  p99 …  max … ms  (n=…)` for the end-of-run tables.
    func row(_ name: String, width: Int, places: Int) -> String {
        func ms(_ value: Double?) -> String { value.map { $0.fixed(places) } ?? "-" }
        return "  \(name.padding(toLength: width, withPad: " ", startingAt: 0)) p50 \(ms(p50))  p95 \(ms(p95))"
            + "  p99 \(ms(p99))  max \(ms(max)) ms  (n=\(count))"
    }
}

extension Double {
    var milliseconds: Double { self * 1_000 }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

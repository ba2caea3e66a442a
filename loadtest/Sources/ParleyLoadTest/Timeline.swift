/// One second of a run, as the live progress line shows it and the chart draws it.
public struct TimelinePoint: Sendable, Equatable, Codable {
    /// Seconds since the scenario started.
    public var time: Double
    /// Calls carrying media (calls scenario) or connected users (chat).
    public var active: Int
    /// Packets the relay sent per second (calls), or messages acknowledged per second (chat).
    public var rate: Double
    /// Packets found lost in this second — sequence gaps, and packets two seconds overdue, never
    /// those still in flight (``LossTimeline``) — in percent of those sent in it (calls); refused
    /// sends (chat).
    public var lossPercent: Double
    /// One-way latency (calls) or delivery latency (chat) in this second, in milliseconds.
    public var latencyP50: Double?
    public var latencyP99: Double?
    /// The server's CPU use in this second, in percent of one core.
    public var serverCPUPercent: Double?
}

extension [TimelinePoint] {
    /// The chart of a run: rate, loss and latency over time.
    func chart(title: String, rateTitle: String, rateUnit: String, lossTitle: String, latencyTitle: String) -> SVGChart {
        SVGChart(title: title, series: [
            .init(title: rateTitle, unit: rateUnit, points: map { ($0.time, $0.rate) }),
            .init(title: lossTitle, unit: "%", points: map { ($0.time, $0.lossPercent) }),
            .init(title: latencyTitle + " p50", unit: "ms", points: compactMap { p in p.latencyP50.map { (p.time, $0) } }),
            .init(title: latencyTitle + " p99", unit: "ms", points: compactMap { p in p.latencyP99.map { (p.time, $0) } }),
        ])
    }
}

import ParleyMediaClient

/// What a chat run measured, as the end-of-run table and the JSON file give it.
public struct ChatReport: Sendable, Codable {
    public var scenario = "chat"
    public var users: Int
    public var privateDialogs: Int
    public var groupDialogs: Int
    public var requestedMessagesPerSecond: Double
    public var sendingSeconds: Double
    public var sent: Int
    public var acknowledged: Int
    public var refused: [String: Int]
    /// Acknowledged messages per second, from the start to the last reply (replies still coming
    /// after the sending stopped count, and so does the time they took).
    public var acknowledgedPerSecond: Double
    public var expectedDeliveries: Int
    public var deliveries: Int
    /// Deliveries per second, from the start to the last delivery.
    public var deliveriesPerSecond: Double
    /// `message.send` → its reply.
    public var acknowledgementLatencyMs: PercentileSummary
    /// `message.send` → `message.new` at another member.
    public var deliveryLatencyMs: PercentileSummary
    /// The server's CPU over the run, in percent of one core.
    public var serverCPUPercent: Double?
    public var timeline: [TimelinePoint]

    init(options: ChatOptions, users: Int, privateDialogs: Int, groupDialogs: Int, snapshot: ChatCollector.Snapshot,
         start: ContinuousClock.Instant, sendingSeconds: Double, timeline: ChatTimeline) {
        self.users = users
        self.privateDialogs = privateDialogs
        self.groupDialogs = groupDialogs
        requestedMessagesPerSecond = options.messagesPerSecond
        self.sendingSeconds = sendingSeconds
        sent = snapshot.sent
        acknowledged = snapshot.acknowledged
        refused = snapshot.refused
        acknowledgedPerSecond = snapshot.lastAcknowledgedAt.map { Double(snapshot.acknowledged) / ($0 - start).seconds } ?? 0
        expectedDeliveries = snapshot.expectedDeliveries
        deliveries = snapshot.deliveries
        deliveriesPerSecond = snapshot.lastDeliveredAt.map { Double(snapshot.deliveries) / ($0 - start).seconds } ?? 0
        acknowledgementLatencyMs = snapshot.acknowledgement.summary
        deliveryLatencyMs = snapshot.delivery.summary
        if let first = timeline.statuses.first, let last = timeline.statuses.last, last.at > first.at {
            serverCPUPercent = (last.status.process.cpuSeconds - first.status.process.cpuSeconds) / (last.at - first.at).seconds * 100
        }
        self.timeline = timeline.points
    }

    public var table: String {
        func row(_ name: String, _ summary: PercentileSummary) -> String { summary.row(name, width: 28, places: 1) }
        var lines = [
            "chat: \(users) users, \(privateDialogs) private + \(groupDialogs) group dialogs, \(requestedMessagesPerSecond.fixed(0)) msg/s asked for \(sendingSeconds.fixed(0)) s",
            "  sent / acknowledged          \(sent) / \(acknowledged)  (\(acknowledgedPerSecond.fixed(1)) msg/s acknowledged)",
            "  deliveries                   \(deliveries) of \(expectedDeliveries) expected  (\(deliveriesPerSecond.fixed(1)) per second)",
        ]
        for (code, count) in refused.sorted(by: { $0.key < $1.key }) { lines.append("  refused \(count)× \(code)") }
        lines += [row("acknowledgement latency", acknowledgementLatencyMs), row("delivery latency", deliveryLatencyMs)]
        if let serverCPUPercent { lines.append("  server CPU                   \(serverCPUPercent.fixed(1)) % of a core") }
        return lines.joined(separator: "\n")
    }
}

extension LatencyHistogram {
    /// p50, p95, p99 and the largest, in milliseconds.
    var summary: PercentileSummary {
        PercentileSummary(count: count, p50: percentile(50).map(\.milliseconds), p95: percentile(95).map(\.milliseconds),
                          p99: percentile(99).map(\.milliseconds), max: percentile(100).map(\.milliseconds))
    }
}

extension ChatReport {
    /// Acknowledged messages per second, refusals and delivery latency over the run.
    public var chart: String {
        timeline.chart(title: "Parley chat: \(users) users, \(Int(requestedMessagesPerSecond)) msg/s asked",
                       rateTitle: "Acknowledged messages", rateUnit: "msg/s", lossTitle: "Refused messages", latencyTitle: "Delivery latency").svg
    }
}

import ParleyMediaClient

/// What a chat run measured, as the end-of-run table and the JSON file give it.
public struct ChatReport: Sendable, Codable {
    public var scenario = "chat"
    public var users: Int
    public var privateDialogs: Int
    public var groupDialogs: Int
    public var requestedMessagesPerSecond: Double
    public var sendingSeconds: Double
    /// How long the sockets took to fall quiet after connecting, before the first send (nil: they
    /// had not after 30 s, and the run began anyway).
    public var settledSeconds: Double?
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
    /// The server's CPU over the run, in percent of one core (every node's together).
    public var serverCPUPercent: Double?
    /// Each node: its users, CPU over the run and resident memory at the end.
    public var nodes: [Node]
    /// The generator's own CPU over the run, in percent of one core.
    public var generatorCPUPercent: Double?
    /// The watched processes beside the servers (`--watch`: the database), in percent of one core.
    public var processes: [WatchedProcess]
    public var timeline: [TimelinePoint]
    /// What the flooding user (`--flooder-sockets`) sent and got, if there was one.
    var flooder: ChatFlooder.Figures?

    public struct Node: Sendable, Codable {
        public var server: String
        public var users: Int
        public var cpuPercent: Double?
        public var residentBytes: UInt64?
    }

    public struct WatchedProcess: Sendable, Codable {
        public var name: String
        public var cpuPercent: Double?
    }

    init(options: ChatOptions, users: Int, privateDialogs: Int, groupDialogs: Int, snapshot: ChatCollector.Snapshot,
         start: ContinuousClock.Instant, sendingSeconds: Double, timeline: ChatTimeline, nodes servers: [String] = [],
         watched: [String] = [], settledSeconds: Double? = nil, flooder: ChatFlooder.Figures? = nil) {
        self.flooder = flooder
        self.users = users
        self.privateDialogs = privateDialogs
        self.groupDialogs = groupDialogs
        requestedMessagesPerSecond = options.messagesPerSecond
        self.sendingSeconds = sendingSeconds
        self.settledSeconds = settledSeconds
        sent = snapshot.sent
        acknowledged = snapshot.acknowledged
        refused = snapshot.refused
        acknowledgedPerSecond = snapshot.lastAcknowledgedAt.map { Double(snapshot.acknowledged) / ($0 - start).seconds } ?? 0
        expectedDeliveries = snapshot.expectedDeliveries
        deliveries = snapshot.deliveries
        deliveriesPerSecond = snapshot.lastDeliveredAt.map { Double(snapshot.deliveries) / ($0 - start).seconds } ?? 0
        acknowledgementLatencyMs = snapshot.acknowledgement.summary
        deliveryLatencyMs = snapshot.delivery.summary
        // Each figure from the first to the last sample that read it: a status poll that timed
        // out (a node's pool busy) loses a second, not the figure.
        let samples = timeline.samples
        let perNode = servers.indices.map { ChatTimeline.percent(samples, \.nodes, $0) }
        serverCPUPercent = perNode.isEmpty || perNode.contains(where: { $0 == nil }) ? nil : perNode.compactMap { $0 }.reduce(0, +)
        self.nodes = servers.enumerated().map { number, server in
            Node(server: server, users: users / servers.count + (number < users % servers.count ? 1 : 0), cpuPercent: perNode[number],
                 residentBytes: samples.last(where: { number < $0.resident.count && $0.resident[number] != nil })?.resident[number])
        }
        generatorCPUPercent = ChatTimeline.percent(samples, \.generatorFigures, 0)
        processes = watched.enumerated().map { WatchedProcess(name: $1, cpuPercent: ChatTimeline.percent(samples, \.watched, $0)) }
        self.timeline = timeline.points
    }

    /// Deliveries not seen. A run that ended with messages still queued (acknowledged < sent)
    /// was cut off mid-stream: a message acknowledged in its last moments may have members whose
    /// copy was a few milliseconds behind, so those are "on their way", not lost; a run that
    /// drained has none of that excuse.
    var shortfall: String {
        let short = max(0, expectedDeliveries - deliveries)
        return acknowledged < sent && short > 0 ? "\(short) on their way at the cut-off" : "\(short) missing"
    }

    public var table: String {
        func row(_ name: String, _ summary: PercentileSummary) -> String { summary.row(name, width: 28, places: 1) }
        var lines = [
            "chat: \(users) users, \(privateDialogs) private + \(groupDialogs) group dialogs, \(requestedMessagesPerSecond.fixed(0)) msg/s asked for \(sendingSeconds.fixed(0)) s",
            "  sent / acknowledged          \(sent) / \(acknowledged)  (\(acknowledgedPerSecond.fixed(1)) msg/s acknowledged)",
            "  deliveries                   \(deliveries) of \(expectedDeliveries) expected, \(shortfall)  (\(deliveriesPerSecond.fixed(1)) per second)",
        ]
        for (code, count) in refused.sorted(by: { $0.key < $1.key }) { lines.append("  refused \(count)× \(code)") }
        lines += [row("acknowledgement latency", acknowledgementLatencyMs), row("delivery latency", deliveryLatencyMs)]
        if let serverCPUPercent {
            lines.append("  server CPU                   \(serverCPUPercent.fixed(1)) % of a core" + (nodes.count > 1 ? " (\(nodes.count) nodes)" : ""))
        }
        if nodes.count > 1 {
            for (number, node) in nodes.enumerated() {
                let cpu = node.cpuPercent.map { "\($0.fixed(1)) % of a core" } ?? "-"
                let memory = node.residentBytes.map { ", \($0 >> 20) MiB resident" } ?? ""
                lines.append("    node \(number + 1) \(node.server)  \(node.users) users  \(cpu)\(memory)")
            }
        }
        for process in processes {
            lines.append("  \((process.name + " CPU").padding(toLength: 28, withPad: " ", startingAt: 0)) \(process.cpuPercent.map { "\($0.fixed(1)) % of a core" } ?? "-")")
        }
        if let generatorCPUPercent { lines.append("  generator CPU                \(generatorCPUPercent.fixed(1)) % of a core") }
        if let flooder {
            lines.append("  flooder (\(flooder.sockets) sockets)          \(flooder.sent) read receipts sent: \(flooder.answered) answered, "
                + "\(flooder.refused) rate_limited, \(flooder.otherErrors) other errors; \(flooder.closedByServer) sockets closed by the server, "
                + "\(flooder.openingsRefused) openings refused")
        }
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

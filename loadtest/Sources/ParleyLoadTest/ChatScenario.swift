import Foundation
import ParleyMediaClient
import Synchronization

/// The `chat` scenario: `users` devices on the realtime socket send `message.send` at a fixed total
/// rate, round-robin over the users, each to its private dialog (with its friend) or its group
/// dialog. Each message carries its send time; every member's `message.new` gives a delivery
/// latency, every reply an acknowledgement latency.
public struct ChatScenario: Sendable {
    public let api: ServerAPI
    public let options: ChatOptions

    public init(api: ServerAPI, options: ChatOptions) {
        self.api = api
        self.options = options
    }

    struct Dialog: Sendable {
        var id: String
        var members: Int
    }

    /// The process-wide origin of the send times carried in the messages.
    static let epoch = ContinuousClock.now

    public func run(progress showProgress: Bool = true) async throws -> ChatReport {
        let progress = Progress()
        let prefix = "lc" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var users: [ServerAPI.User] = []
        var batchStart = 0
        while batchStart < options.users {
            let count = min(200, options.users - batchStart)
            users += try await api.seedUsers(count: count, prefix: "\(prefix)b\(batchStart)x", befriend: "all")
            batchStart += count
        }
        progress.note("seeded \(users.count) users; opening dialogs…")
        let dialogs = try await openDialogs(users)
        let collector = ChatCollector()
        progress.note("connecting \(users.count) realtime sockets…")
        let connections = try await connectAll(users, collector: collector)
        defer { for connection in connections { connection.close() } }

        let start = ContinuousClock.now
        let end = start + options.duration
        let sampler = Task { await sample(collector, start: start, until: end + options.drain, progress: showProgress ? progress : nil) }
        await sendAll(connections: connections, dialogs: dialogs, collector: collector, start: start, end: end)
        // Let replies and deliveries still on their way arrive.
        let drainEnd = ContinuousClock.now + options.drain
        while ContinuousClock.now < drainEnd {
            let now = collector.snapshot
            if now.acknowledged + now.refused.values.reduce(0, +) >= now.sent, now.deliveries >= now.expectedDeliveries { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        sampler.cancel()
        let timeline = await sampler.value
        progress.finish()
        let privateCount = dialogs.filter { $0.private != nil }.count / 2
        let groups = Set(dialogs.compactMap { $0.group?.id }).count
        return ChatReport(options: options, users: users.count, privateDialogs: privateCount, groupDialogs: groups,
                          snapshot: collector.snapshot, start: start, sendingSeconds: options.duration.seconds, timeline: timeline)
    }

    /// Per user: its private dialog (with its pair) and its group dialog, if any.
    private func openDialogs(_ users: [ServerAPI.User]) async throws -> [(private: Dialog?, group: Dialog?)] {
        var byUser: [(private: Dialog?, group: Dialog?)] = Array(repeating: (nil, nil), count: users.count)
        var batch = 0
        while batch < users.count {
            let batchEnd = min(batch + 200, users.count)
            for k in stride(from: batch, to: batchEnd - 1, by: 2) {
                let id = try await api.openDialog(token: users[k].accessToken, ["type": "private", "userId": users[k + 1].id])
                byUser[k].private = Dialog(id: id, members: 2)
                byUser[k + 1].private = Dialog(id: id, members: 2)
            }
            if options.groupSize >= 3 {
                for first in stride(from: batch, to: batchEnd - options.groupSize + 1, by: options.groupSize) {
                    let members = (first..<first + options.groupSize).map { users[$0].id }
                    let id = try await api.openDialog(token: users[first].accessToken, [
                        "type": "group", "name": "load \(first)", "memberIds": Array(members.dropFirst()),
                    ])
                    for k in first..<first + options.groupSize { byUser[k].group = Dialog(id: id, members: options.groupSize) }
                }
            }
            batch = batchEnd
        }
        return byUser
    }

    private func connectAll(_ users: [ServerAPI.User], collector: ChatCollector) async throws -> [RealtimeConnection] {
        try await RealtimeConnection.connectAll(url: api.realtimeURL, tokens: users.map(\.accessToken)) { index in
            let me = users[index].id
            return { frame in
                guard frame.type == "message.new" else { return false }
                let message = frame["message"] as? [String: Any]
                guard message?["senderId"] as? String != me,
                      let text = message?["text"] as? String, let sentAt = Self.sendTime(text) else { return true }
                collector.delivered(after: (frame.receivedAt - sentAt).seconds, at: frame.receivedAt)
                return true
            }
        }
    }

    /// Open-loop sending: every 5 ms, the messages the schedule says are due.
    private func sendAll(connections: [RealtimeConnection], dialogs: [(private: Dialog?, group: Dialog?)],
                         collector: ChatCollector, start: ContinuousClock.Instant, end: ContinuousClock.Instant) async {
        var sent = 0
        var tick = start
        let runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        while tick < end {
            let due = Int(options.messagesPerSecond * (tick - start).seconds) - sent
            for _ in 0..<max(due, 0) {
                let sender = sent % connections.count
                let wantsGroup = Double(sent % 100) < options.groupShare * 100
                guard let dialog = (wantsGroup ? dialogs[sender].group : nil) ?? dialogs[sender].private ?? dialogs[sender].group else {
                    sent += 1
                    continue
                }
                let sentAt = ContinuousClock.now
                collector.sent()
                connections[sender].send("message.send", [
                    "dialogId": dialog.id, "clientMessageId": "\(runID)-\(sent)", "kind": "text", "text": Self.text(sentAt: sentAt),
                ]) { reply in
                    if reply.ok {
                        collector.acknowledged(after: (reply.receivedAt - sentAt).seconds, recipients: dialog.members - 1,
                                              at: reply.receivedAt)
                    } else {
                        collector.refused(reply.errorCode ?? "unknown")
                    }
                }
                sent += 1
            }
            tick += .milliseconds(5)
            try? await Task.sleep(until: tick)
        }
    }

    static func text(sentAt: ContinuousClock.Instant) -> String {
        let elapsed = (sentAt - epoch).components
        return "load test message sent at \(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)"
    }

    static func sendTime(_ text: String) -> ContinuousClock.Instant? {
        guard let nanoseconds = text.split(separator: " ").last.flatMap({ Int64($0) }) else { return nil }
        return epoch + .nanoseconds(nanoseconds)
    }

    private func sample(_ collector: ChatCollector, start: ContinuousClock.Instant, until end: ContinuousClock.Instant,
                        progress: Progress?) async -> ChatTimeline {
        var timeline = ChatTimeline()
        var previous: (at: ContinuousClock.Instant, snapshot: ChatCollector.Snapshot, status: ServerAPI.Status?)?
        var tick = start
        while tick < end, !Task.isCancelled {
            tick += .seconds(1)
            try? await Task.sleep(until: tick)
            let now = ContinuousClock.now
            let snapshot = collector.snapshot
            let status = try? await api.status()
            var point = TimelinePoint(time: (now - start).seconds, active: status?.connections ?? 0, rate: 0, lossPercent: 0)
            if let previous {
                let elapsed = (now - previous.at).seconds
                point.rate = Double(snapshot.acknowledged - previous.snapshot.acknowledged) / elapsed
                let refused = snapshot.refused.values.reduce(0, +) - previous.snapshot.refused.values.reduce(0, +)
                let answered = refused + snapshot.acknowledged - previous.snapshot.acknowledged
                point.lossPercent = answered > 0 ? Double(refused) / Double(answered) * 100 : 0
                let window = snapshot.delivery.subtracting(previous.snapshot.delivery)
                point.latencyP50 = window.percentile(50).map(\.milliseconds)
                point.latencyP99 = window.percentile(99).map(\.milliseconds)
                if let status, let before = previous.status {
                    point.serverCPUPercent = (status.process.cpuSeconds - before.process.cpuSeconds) / elapsed * 100
                }
            }
            timeline.points.append(point)
            if let status { timeline.statuses.append((now, status)) }
            previous = (now, snapshot, status)
            progress?.show("[\(Int(point.time.rounded()))s] sent \(snapshot.sent)  acknowledged \(Int(point.rate))/s"
                + "  delivered \(snapshot.deliveries)/\(snapshot.expectedDeliveries)"
                + "  latency p50 \(point.latencyP50.map { $0.fixed(1) } ?? "-") ms"
                + "  server CPU \(point.serverCPUPercent.map { String(Int($0)) } ?? "-") %")
        }
        return timeline
    }
}

struct ChatTimeline: Sendable {
    var points: [TimelinePoint] = []
    var statuses: [(at: ContinuousClock.Instant, status: ServerAPI.Status)] = []
}

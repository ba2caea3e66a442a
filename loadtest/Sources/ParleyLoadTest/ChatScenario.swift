import Foundation
import ParleyCore
import ParleyMediaClient
import Synchronization

/// The `chat` scenario: `users` devices on the realtime socket send `message.send` at a fixed total
/// rate, round-robin over the users, each to its private dialog (with its friend) or its group
/// dialog. Each message carries its send time; every member's `message.new` gives a delivery
/// latency, every reply an acknowledgement latency. With several nodes of one installation (one
/// PostgreSQL), user `i` connects to node `i % nodes.count`, so most dialogs cross nodes; users
/// are seeded and dialogs opened through the first.
public struct ChatScenario: Sendable {
    public let api: ServerAPI
    public let options: ChatOptions
    /// Every node, the first being `api`.
    public let nodes: [ServerAPI]
    /// Processes beside the servers whose CPU the report gives (the database).
    public let watched: [ProcessTreeCPU]

    public init(api: ServerAPI, options: ChatOptions, otherNodes: [ServerAPI] = [], watched: [ProcessTreeCPU] = []) {
        self.api = api
        self.options = options
        nodes = [api] + otherNodes
        self.watched = watched
    }

    struct Dialog: Sendable {
        var id: String
        var members: Int
    }

    /// Users are seeded, and befriended everyone with everyone, in groups of this many; a user's
    /// private and group dialogs are inside their group. (200 made seeding on PostgreSQL take
    /// minutes, 20 000 friendships a group, and connecting sent each user's presence to 199 friends.)
    var friendGroup: Int { max(20, options.groupSize) }

    /// The process-wide origin of the send times carried in the messages.
    static let epoch = ContinuousClock.now

    public func run(progress showProgress: Bool = true) async throws -> ChatReport {
        let progress = Progress()
        let prefix = "lc" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var users: [ServerAPI.User] = []
        var batchStart = 0
        while batchStart < options.users {
            let count = min(friendGroup, options.users - batchStart)
            users += try await api.seedUsers(count: count, prefix: "\(prefix)b\(batchStart)x", befriend: "all")
            batchStart += count
        }
        progress.note("seeded \(users.count) users; opening dialogs…")
        let dialogs = try await openDialogs(users)
        let collector = ChatCollector()
        progress.note("connecting \(users.count) realtime sockets…")
        let connections = try await connectAll(users, collector: collector)
        defer { for connection in connections { connection.close() } }
        // Connecting told each user's friends (`user.updated`, stored and delivered): the run
        // measures chat, so it starts once that has been delivered, not while it still is.
        let settled = await collector.settled(quietFor: .milliseconds(500), within: .seconds(30))
        progress.note(settled.map { "connections settled after \(Int($0.seconds * 1000)) ms (no event for 500 ms); sending…" }
                      ?? "events still arriving 30 s after connecting; sending anyway…")

        let flooder = options.flooderSockets > 0 ? ChatFlooder(api: api, sockets: options.flooderSockets) : nil
        let floodTarget = try await flooder?.prepare(prefix: prefix)
        if let flooder { progress.note("one more user floods from \(options.flooderSockets) sockets while the chat runs…") }

        let start = ContinuousClock.now
        let end = start + options.duration
        let sampler = Task { await sample(collector, start: start, until: end + options.drain, progress: showProgress ? progress : nil) }
        let flooding = Task { if let flooder, let floodTarget { await flooder.run(floodTarget, until: end) } }
        await sendAll(connections: connections, dialogs: dialogs, collector: collector, start: start, end: end)
        await flooding.value
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
                          snapshot: collector.snapshot, start: start, sendingSeconds: options.duration.seconds, timeline: timeline,
                          nodes: nodes.map(\.baseURL), watched: watched.map(\.name), settledSeconds: settled?.seconds,
                          flooder: flooder?.snapshot)
    }

    /// Per user: its private dialog (with its pair) and its group dialog, if any.
    private func openDialogs(_ users: [ServerAPI.User]) async throws -> [(private: Dialog?, group: Dialog?)] {
        var byUser: [(private: Dialog?, group: Dialog?)] = Array(repeating: (nil, nil), count: users.count)
        var batch = 0
        while batch < users.count {
            let batchEnd = min(batch + friendGroup, users.count)
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

    /// The user `i`'s socket on node `i % nodes.count`; in the order of `users`.
    private func connectAll(_ users: [ServerAPI.User], collector: ChatCollector) async throws -> [RealtimeConnection] {
        var connections: [RealtimeConnection?] = Array(repeating: nil, count: users.count)
        for (number, node) in nodes.enumerated() {
            let mine = Array(stride(from: number, to: users.count, by: nodes.count))
            let opened = try await connectAll(mine.map { users[$0] }, url: node.realtimeURL, collector: collector)
            guard opened.count == mine.count else { throw ServerAPI.Failure(status: 0, body: "\(node.baseURL): sockets not opened") }
            for (index, connection) in zip(mine, opened) { connections[index] = connection }
        }
        return connections.compactMap { $0 }
    }

    private func connectAll(_ users: [ServerAPI.User], url: String, collector: ChatCollector) async throws -> [RealtimeConnection] {
        try await RealtimeConnection.connectAll(url: url, tokens: users.map(\.accessToken)) { index in
            let me = users[index].id
            return { frame in
                collector.eventArrived()
                guard frame.type == "message.new" else { return false }
                guard frame.messageSenderID != me, let text = frame.messageBody, let sentAt = Self.sendTime(text) else { return true }
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
                await connections[sender].send("message.send", [
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

    /// The send time in a message's text: its last word (read for every delivery, so without splitting the text).
    static func sendTime(_ text: String) -> ContinuousClock.Instant? {
        let lastWord = text.lastIndex(of: " ").map { text[text.index(after: $0)...] } ?? text[...]
        guard let nanoseconds = Int64(lastWord) else { return nil }
        return epoch + .nanoseconds(nanoseconds)
    }

    private func sample(_ collector: ChatCollector, start: ContinuousClock.Instant, until end: ContinuousClock.Instant,
                        progress: Progress?) async -> ChatTimeline {
        var timeline = ChatTimeline()
        var previous: (at: ContinuousClock.Instant, snapshot: ChatCollector.Snapshot, cpu: ChatTimeline.CPUSample)?
        var tick = start
        while tick < end, !Task.isCancelled {
            tick += .seconds(1)
            try? await Task.sleep(until: tick)
            let now = ContinuousClock.now
            let snapshot = collector.snapshot
            var statuses: [ServerAPI.Status?] = []
            for node in nodes { statuses.append(try? await node.status()) }
            let cpu = ChatTimeline.CPUSample(
                at: now, nodes: statuses.map { $0?.process.cpuSeconds }, resident: statuses.map { $0?.process.residentBytes },
                generator: ProcessStats.current()?.cpuSeconds, watched: watched.map { $0.cpuSeconds() })
            let connected = statuses.compactMap { $0?.connections }.reduce(0, +)
            var point = TimelinePoint(time: (now - start).seconds, active: connected, rate: 0, lossPercent: 0)
            // The first second's window runs from the start (its sends and deliveries count in
            // the totals, and a cold start shows there); its CPU has no reading before it.
            let since = previous?.snapshot ?? ChatCollector.Snapshot()
            let elapsed = (now - (previous?.at ?? start)).seconds
            point.rate = Double(snapshot.acknowledged - since.acknowledged) / elapsed
            let refused = snapshot.refused.values.reduce(0, +) - since.refused.values.reduce(0, +)
            let answered = refused + snapshot.acknowledged - since.acknowledged
            point.lossPercent = answered > 0 ? Double(refused) / Double(answered) * 100 : 0
            let window = snapshot.delivery.subtracting(since.delivery)
            point.latencyP50 = window.percentile(50).map(\.milliseconds)
            point.latencyP99 = window.percentile(99).map(\.milliseconds)
            if let previous { point.serverCPUPercent = ChatTimeline.percent(previous.cpu.nodes, cpu.nodes, over: elapsed) }
            timeline.points.append(point)
            timeline.samples.append(cpu)
            previous = (now, snapshot, cpu)
            progress?.show("[\(Int(point.time.rounded()))s] sent \(snapshot.sent)  acknowledged \(Int(point.rate))/s"
                + "  delivered \(snapshot.deliveries)/\(snapshot.expectedDeliveries)"
                + "  latency p50 \(point.latencyP50.map { $0.fixed(1) } ?? "-") ms"
                + "  server CPU \(point.serverCPUPercent.map { String(Int($0)) } ?? "-") %")
        }
        return timeline
    }
}

struct ChatTimeline: Sendable {
    /// CPU seconds so far, read once a second: each node's (its `/admin/status`), the
    /// generator's own, each watched process tree's; nil where a reading failed.
    struct CPUSample: Sendable {
        var at: ContinuousClock.Instant
        var nodes: [Double?]
        var resident: [UInt64?]
        var generator: Double?
        var watched: [Double?]
        var generatorFigures: [Double?] { [generator] }
    }

    var points: [TimelinePoint] = []
    var samples: [CPUSample] = []

    /// Percent of one core between two readings of CPU seconds over `seconds`, summed over the
    /// figures; nil unless every one was read both times.
    static func percent(_ before: [Double?], _ after: [Double?], over seconds: Double) -> Double? {
        guard seconds > 0, before.count == after.count, !before.isEmpty else { return nil }
        var used = 0.0
        for (before, after) in zip(before, after) {
            guard let before, let after else { return nil }
            used += after - before
        }
        return used / seconds * 100
    }

    /// Percent of one core of figure `index`, from the first to the last sample that read it.
    static func percent(_ samples: [CPUSample], _ figures: KeyPath<CPUSample, [Double?]>, _ index: Int) -> Double? {
        let read = samples.compactMap { sample -> (at: ContinuousClock.Instant, seconds: Double)? in
            let values = sample[keyPath: figures]
            return index < values.count ? values[index].map { (sample.at, $0) } : nil
        }
        guard let first = read.first, let last = read.last else { return nil }
        return percent([first.seconds], [last.seconds], over: (last.at - first.at).seconds)
    }
}

import Foundation
import ParleyMediaClient
import Synchronization

/// What the `idle` scenario runs: many devices on the realtime socket doing nothing, then
/// optionally call invites among them.
public struct IdleOptions: Sendable {
    /// Connected users, seeded in friend pairs.
    public var users = 1_000
    /// How long the sockets sit idle before the server's memory is read.
    public var settle: Duration = .seconds(10)
    /// Invites to time (0: none); each rings a friend and hangs up once `call.incoming` arrived.
    public var invites = 0
    /// Invites started per second (open loop).
    public var invitesPerSecond = 20.0

    public init() {}
}

/// The figures of an `idle` run: the server's resident memory before and with every socket
/// connected, and invite → `call.incoming` latency with them connected.
public struct IdleReport: Sendable, Codable {
    public var users: Int
    public var connected: Int
    public var residentBytesBefore: UInt64
    public var residentBytesConnected: UInt64
    public var residentBytesPerConnection: Double
    public var invites: Int
    public var inviteFailures: [String: Int]
    public var inviteToIncomingMs: PercentileSummary

    public var table: String {
        func mib(_ bytes: UInt64) -> String { (Double(bytes) / 1_048_576).fixed(1) + " MiB" }
        func ms(_ value: Double?) -> String { value.map { $0.fixed(2) + " ms" } ?? "-" }
        var lines = [
            "idle: \(connected) of \(users) users connected",
            "server resident memory: \(mib(residentBytesBefore)) before, \(mib(residentBytesConnected)) connected"
                + " (\((residentBytesPerConnection / 1024).fixed(1)) KiB per connection)",
        ]
        if invites > 0 {
            let s = inviteToIncomingMs
            lines.append("invite → call.incoming (\(s.count) of \(invites)): p50 \(ms(s.p50))  p95 \(ms(s.p95))  p99 \(ms(s.p99))  max \(ms(s.max))")
            if !inviteFailures.isEmpty { lines.append("invite failures: \(inviteFailures)") }
        }
        return lines.joined(separator: "\n")
    }
}

/// The `idle` scenario: `users` devices connect and stay idle; after `settle` the server's
/// resident memory is read from `/admin/status` (and before they connected, for the difference).
/// Then, with `invites`, callers ring their friend (the users are seeded in pairs) with a real
/// WebRTC offer at a fixed rate, and the time from sending `call.invite` to the callee's device
/// receiving `call.incoming` is measured; each call is hung up as soon as it rang.
public struct IdleScenario: Sendable {
    public let api: ServerAPI
    public let options: IdleOptions

    public init(api: ServerAPI, options: IdleOptions) {
        self.api = api
        self.options = options
    }

    public func run() async throws -> IdleReport {
        let progress = Progress()
        let prefix = "li" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var users: [ServerAPI.User] = []
        while users.count < options.users {
            let count = min(200, options.users - users.count)
            users += try await api.seedUsers(count: count, prefix: "\(prefix)b\(users.count)x", befriend: "pairs")
        }
        progress.note("seeded \(users.count) users; connecting their realtime sockets…")
        let before = try await api.status()
        let connections = try await RealtimeConnection.connectAll(url: api.realtimeURL, tokens: users.map(\.accessToken))
        defer { for connection in connections { connection.close() } }
        progress.note("\(connections.count) connected; idle for \(options.settle)…")
        try await Task.sleep(for: options.settle)
        let connected = try await api.status()

        var latencies = Samples()
        var failures: [String: Int] = [:]
        if options.invites > 0, connections.count >= 2 {
            // One offer for every invite: the relay makes a leg of its own for each call.
            let client = try await MediaClient(configuration: MediaClientConfiguration(cname: "parley-loadtest"))
            defer { client.close() }
            (latencies, failures) = await invite(connections: connections, users: users, offer: client.offer, progress: progress)
        }
        let grown = connected.process.residentBytes > before.process.residentBytes
            ? connected.process.residentBytes - before.process.residentBytes : 0
        return IdleReport(
            users: users.count, connected: connected.connections, residentBytesBefore: before.process.residentBytes,
            residentBytesConnected: connected.process.residentBytes,
            residentBytesPerConnection: Double(grown) / Double(max(connections.count, 1)),
            invites: options.invites, inviteFailures: failures, inviteToIncomingMs: latencies.summary)
    }

    private func invite(connections: [RealtimeConnection], users: [ServerAPI.User], offer: String, progress: Progress) async
        -> (Samples, [String: Int]) {
        let results = InviteResults()
        let pairs = connections.count / 2
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<options.invites {
                let startAt = start + .seconds(Double(index) / options.invitesPerSecond)
                let pair = index % pairs
                let caller = connections[2 * pair], callee = connections[2 * pair + 1], calleeID = users[2 * pair + 1].id
                group.addTask {
                    try? await Task.sleep(until: startAt)
                    let sentAt = ContinuousClock.now
                    do {
                        let reply = try await caller.command("call.invite", ["to": calleeID, "media": "audio", "sdp": offer])
                        guard let callID = reply["callId"] as? String else { throw RealtimeConnection.Failure.refused(type: "call.invite", code: "no callId") }
                        let incoming = try await callee.event(timeout: .seconds(10)) { $0.type == "call.incoming" && $0["callId"] as? String == callID }
                        results.state.withLock { $0.samples.append((incoming.receivedAt - sentAt).seconds) }
                        _ = try? await caller.command("call.hangup", ["callId": callID], timeout: .seconds(10))
                    } catch {
                        let key = "\(error)".prefix(80)
                        results.state.withLock { $0.failures[String(key), default: 0] += 1 }
                    }
                }
            }
        }
        progress.note("\(options.invites) invites done")
        return results.state.withLock { ($0.samples, $0.failures) }
    }
}

/// What the invites measured, shared by their tasks.
final class InviteResults: Sendable {
    let state = Mutex((samples: Samples(), failures: [String: Int]()))
}

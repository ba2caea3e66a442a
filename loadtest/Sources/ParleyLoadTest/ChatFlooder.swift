import Foundation
import Synchronization

/// One more user beside the chat's, who asks the node for all it will give for as long as the
/// chat sends: `sockets` realtime sockets, each keeping `window` read receipts in flight (every
/// one a write for the store's one writer), with no pause for a refusal, and opening a socket
/// again when the server closes one. What the run then shows is whether everybody else's chat
/// still goes as it did (the per-user request budget, `limits.requestsPerSecond`), and the
/// figures say what the flooder got.
final class ChatFlooder: Sendable {
    struct Figures: Sendable, Codable, Equatable {
        var sockets = 0
        var sent = 0
        var answered = 0
        var refused = 0
        var otherErrors = 0
        /// Sockets the server closed under the flooder (each opened again).
        var closedByServer = 0
        /// Socket openings refused (`429 rate_limited` on the upgrade, or any other failure).
        var openingsRefused = 0
    }

    static let window = 32

    private let api: ServerAPI
    private let sockets: Int
    private let figures = Mutex(Figures())

    init(api: ServerAPI, sockets: Int) {
        self.api = api
        self.sockets = sockets
    }

    var snapshot: Figures { figures.withLock { $0 } }

    /// A user of its own in a group of their own with one message in it, whose read receipt is
    /// what it sends over and over: it shares nothing with the users the run measures.
    func prepare(prefix: String) async throws -> (token: String, dialog: String, message: String) {
        guard let user = try await api.seedUsers(count: 1, prefix: "\(prefix)flood", befriend: "none").first else {
            throw ServerAPI.Failure(status: 0, body: "no flooder seeded")
        }
        let dialog = try await api.openDialog(token: user.accessToken, ["type": "group", "name": "flood", "memberIds": [String]()])
        let socket = try await RealtimeConnection.connect(url: api.realtimeURL, token: user.accessToken)
        defer { socket.close() }
        let sent = try await socket.command("message.send", ["dialogId": dialog, "clientMessageId": "flood", "kind": "text", "text": "flood"])
        guard let message = (sent["message"] as? [String: Any])?["id"] as? String else {
            throw ServerAPI.Failure(status: 0, body: "the flooder's message has no id: \(sent.text)")
        }
        return (user.accessToken, dialog, message)
    }

    /// Floods from `sockets` sockets until `end`.
    func run(_ target: (token: String, dialog: String, message: String), until end: ContinuousClock.Instant) async {
        figures.withLock { $0.sockets = sockets }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<sockets {
                group.addTask { await self.flood(target, until: end) }
            }
        }
    }

    private func flood(_ target: (token: String, dialog: String, message: String), until end: ContinuousClock.Instant) async {
        while ContinuousClock.now < end {
            guard let socket = try? await RealtimeConnection.connect(url: api.realtimeURL, token: target.token, timeout: .seconds(5)) else {
                figures.withLock { $0.openingsRefused += 1 }
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let inFlight = InFlight()
            while ContinuousClock.now < end, !socket.isClosed {
                var sentNow = 0
                while inFlight.count.load(ordering: .relaxed) < Self.window {
                    sentNow += 1
                    inFlight.count.add(1, ordering: .relaxed)
                    figures.withLock { $0.sent += 1 }
                    await socket.send("message.read", ["dialogId": target.dialog, "upToMessageId": target.message]) { [self] reply in
                        inFlight.count.subtract(1, ordering: .relaxed)
                        self.figures.withLock { figures in
                            if reply.ok {
                                figures.answered += 1
                            } else if reply.text.contains(#""rate_limited""#) {
                                figures.refused += 1
                            } else {
                                figures.otherErrors += 1
                            }
                        }
                    }
                }
                // A socket the server is not reading (its budget spent) is looked at less often:
                // the generator's CPU is the chat's too.
                try? await Task.sleep(for: sentNow > 0 ? .milliseconds(1) : .milliseconds(10))
            }
            if socket.isClosed { figures.withLock { $0.closedByServer += 1 } } else { socket.close() }
        }
    }
}

/// The commands one flooding socket has sent and not yet had answered.
private final class InFlight: Sendable {
    let count = Atomic<Int>(0)
}

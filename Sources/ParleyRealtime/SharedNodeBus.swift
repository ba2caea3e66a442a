import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyStorage
import Synchronization

/// The nodes sharing one PostgreSQL, told of each other's ephemeral events, ended sessions and
/// connected users through `pg_notify` on ``channel`` (``NodeSignal`` as JSON). Signals go out
/// in the order they were made, from one task. Every node sends its roster (the users connected
/// on it) every ``heartbeat`` and when another node says `hello`; a node not heard from for
/// ``expiry`` (it died without its `bye`) no longer counts, so its users show offline once no
/// other node has them. NOTIFY is not stored: a node that was not listening missed it, which is
/// why rosters repeat.
public final class SharedNodeBus: NodeBus, NodeRequests, @unchecked Sendable {   // `outgoing` is a continuation; the rest is behind Mutexes
    public static let channel = "parley_signals"
    public static let heartbeat = Duration.seconds(5)
    public static let expiry: TimeInterval = 16
    public let node = UUID().uuidString.lowercased()
    let hub: EventHub
    let database: Database
    let logger: Logger
    private let outgoing: AsyncStream<NodeSignal>.Continuation
    private let stream: AsyncStream<NodeSignal>
    /// The other nodes: the users connected on each, and when it was last heard from.
    private let remote = Mutex<[String: (users: Set<UserID>, heard: Date)]>([:])
    /// Requests sent and not yet answered, by id.
    let pending = Mutex<[String: CheckedContinuation<String, any Error>]>([:])
    /// How this node answers requests, by topic.
    let handlers = Mutex<[String: @Sendable (String) async -> String]>([:])

    public init(hub: EventHub, database: Database, logger: Logger) {
        self.hub = hub
        self.database = database
        self.logger = logger
        (stream, outgoing) = AsyncStream.makeStream(of: NodeSignal.self)
    }

    public var settleTime: Duration { .seconds(1) }

    public func ephemeral(_ event: RealtimeEvent, to users: [UserID]) {
        guard !users.isEmpty else { return }
        send(NodeSignal(node: node, kind: .ephemeral, users: users.map(\.rawValue), type: event.type, payload: event.payloadJSON()))
    }

    public func closeConnections(session: SessionID?, user: UserID?) {
        send(NodeSignal(node: node, kind: .close, users: user.map { [$0.rawValue] } ?? [], session: session?.rawValue))
    }

    public func presenceChanged(_ user: UserID, online: Bool) {
        send(NodeSignal(node: node, kind: online ? .online : .offline, users: [user.rawValue]))
    }

    public func isOnlineElsewhere(_ user: UserID) -> Bool {
        let cutoff = Date().addingTimeInterval(-Self.expiry)
        return remote.withLock { nodes in nodes.values.contains { $0.heard > cutoff && $0.users.contains(user) } }
    }

    func send(_ signal: NodeSignal) { outgoing.yield(signal) }

    /// Listens, says hello, sends signals in order and the roster every heartbeat, until `stop`.
    public func run() async throws {
        try await database.listen(Self.channel, reconnected: { [weak self] in
            // Signals sent meanwhile were missed: the others' rosters come again on hello.
            guard let self else { return }
            self.send(NodeSignal(node: self.node, kind: .hello))
            self.sendRoster()
        }) { [weak self] json in
            guard let self, let signal = NodeSignal.decode(json), signal.isFor(self.node) else { return }
            self.receive(signal)
        }
        send(NodeSignal(node: node, kind: .hello))
        sendRoster()
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.heartbeat)
                self?.sendRoster()
            }
        }
        defer { ticker.cancel() }
        for await signal in stream {
            do {
                var json = signal.json
                if json == nil { json = try await parcel(signal) }
                guard let json else {
                    logger.warning("node signal too large; not sent", metadata: ["kind": "\(signal.kind.rawValue)"])
                    continue
                }
                try await database.notify(Self.channel, payload: json)
            } catch {
                logger.error("node signal not sent", metadata: ["kind": "\(signal.kind.rawValue)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Says `bye` (the other nodes stop counting this one's users), then ends `run`.
    public func stop() async {
        if let json = NodeSignal(node: node, kind: .bye).json { try? await database.notify(Self.channel, payload: json) }
        outgoing.finish()
        failPending()
    }

    private func sendRoster() {
        for signal in NodeSignal.split(node: node, kind: .roster, users: hub.onlineUsers().map(\.rawValue)) { send(signal) }
    }

    /// Carries out another node's signal (on the listening connection's thread).
    func receive(_ signal: NodeSignal) {
        let users = signal.users.map(UserID.init(rawValue:))
        switch signal.kind {
        case .ephemeral:
            guard let type = signal.type, let payload = signal.payload, let event = RealtimeEvent.decode(type: type, payload: payload)
            else { return }
            hub.deliverEphemeral(event, to: users)
        case .close:
            if let session = signal.session {
                hub.closeConnections(session: SessionID(rawValue: session))
            } else {
                for user in users { hub.closeConnections(user: user) }
            }
        case .online, .roster:
            remote.withLock { nodes in
                var entry = nodes[signal.node] ?? (users: [], heard: Date())
                entry.users.formUnion(users)
                entry.heard = Date()
                nodes[signal.node] = entry
            }
        case .offline:
            remote.withLock { nodes in
                var entry = nodes[signal.node] ?? (users: [], heard: Date())
                entry.users.subtract(users)
                entry.heard = Date()
                nodes[signal.node] = entry
            }
        case .hello:
            remote.withLock { $0[signal.node] = (users: [], heard: Date()) }
            sendRoster()
        case .bye:
            _ = remote.withLock { $0.removeValue(forKey: signal.node) }
        case .request:
            answer(signal)
        case .reply:
            replied(signal)
        case .parcel:
            unpack(signal)
        }
    }
}

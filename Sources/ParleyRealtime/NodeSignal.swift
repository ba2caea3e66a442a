import Foundation

/// What one node tells the others besides stored events (those travel as `SharedEventFanout`'s
/// wake-ups): an event that is not stored (typing), connections to close (a session ended on
/// another node), who holds a socket where (presence), and requests between two nodes with their
/// replies. One JSON object per `pg_notify`, under its 8 000-byte limit (a larger one goes as a
/// `parcel`: stored, and its id sent); a node's own signals come back to it and are ignored by `node`.
public struct NodeSignal: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// `event` (type and payload, as stored events are) for `users`' sockets.
        case ephemeral
        /// Close `session`'s connections, or all of `users`' (logout, password reset).
        case close
        /// `users` have their first socket on `node` now (`online`), or their last one closed.
        case online, offline
        /// `node` is up and holds sockets of `users` (one of several messages for many users);
        /// sent every ``NodeBus/heartbeat`` and when a node asks with `hello`.
        case roster
        /// A node started: every other node sends its roster.
        case hello
        /// `node` is shutting down: its users are online no more there.
        case bye
        /// A request for node `to` (`topic`, `request` its id, `payload` the body), and its answer
        /// (`request` the id it answers, `payload` the body).
        case request, reply
        /// A signal too large for one notification, stored in `node_parcels` under `payload`.
        case parcel
    }

    public var node: String
    public var kind: Kind
    public var users: [String]
    public var session: String?
    public var type: String?
    public var payload: String?
    /// The node a request, reply or parcel is for (nil: every node).
    public var to: String?
    /// A request's id, which its reply repeats.
    public var request: String?
    public var topic: String?

    public init(node: String, kind: Kind, users: [String] = [], session: String? = nil, type: String? = nil, payload: String? = nil,
                to: String? = nil, request: String? = nil, topic: String? = nil) {
        self.node = node
        self.kind = kind
        self.users = users
        self.session = session
        self.type = type
        self.payload = payload
        self.to = to
        self.request = request
        self.topic = topic
    }

    /// Whether this node should look at the signal: not its own, and for it or for every node.
    public func isFor(_ me: String) -> Bool { node != me && (to == nil || to == me) }

    /// The JSON sent; nil when it would not fit one notification.
    public var json: String? {
        guard let data = try? JSONEncoder().encode(self), data.count <= Self.maxBytes else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode(_ json: String) -> NodeSignal? {
        try? JSONDecoder().decode(NodeSignal.self, from: Data(json.utf8))
    }

    /// PostgreSQL's limit is 8 000 bytes; a little is kept back.
    public static let maxBytes = 7_800

    /// `users` split into signals that each fit (a roster of many users).
    public static func split(node: String, kind: Kind, users: [String]) -> [NodeSignal] {
        var signals: [NodeSignal] = []
        var batch: [String] = [], size = 0
        for user in users {
            if size + user.utf8.count + 3 > maxBytes - 200, !batch.isEmpty {
                signals.append(NodeSignal(node: node, kind: kind, users: batch))
                batch = []
                size = 0
            }
            batch.append(user)
            size += user.utf8.count + 3
        }
        if !batch.isEmpty || signals.isEmpty { signals.append(NodeSignal(node: node, kind: kind, users: batch)) }
        return signals
    }
}

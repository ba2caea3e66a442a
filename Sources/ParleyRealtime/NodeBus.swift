import Foundation
import ParleyCore
import ParleyProtocol

/// What the nodes of one installation tell each other beyond stored events: events that are not
/// stored (typing), connections to close wherever they are (a session ended), and who is
/// connected on which node (presence). `LocalNodeBus`: one node, nobody to tell.
/// `SharedNodeBus`: the nodes sharing a PostgreSQL, over LISTEN/NOTIFY.
public protocol NodeBus: Sendable {
    /// Hands `event` to `users`' sockets on the other nodes.
    func ephemeral(_ event: RealtimeEvent, to users: [UserID])
    /// Closes a session's connections (or all of a user's) on the other nodes.
    func closeConnections(session: SessionID?, user: UserID?)
    /// `user`'s first socket on this node opened (`online`), or the last one closed.
    func presenceChanged(_ user: UserID, online: Bool)
    /// Whether another node holds a socket of `user`.
    func isOnlineElsewhere(_ user: UserID) -> Bool
    /// How long to wait after a user's last socket here closed before saying they went offline:
    /// time for another node's word that they are still (or also no longer) there.
    var settleTime: Duration { get }
}

/// One node: the event hub is the whole truth.
public struct LocalNodeBus: NodeBus {
    public init() {}
    public func ephemeral(_ event: RealtimeEvent, to users: [UserID]) {}
    public func closeConnections(session: SessionID?, user: UserID?) {}
    public func presenceChanged(_ user: UserID, online: Bool) {}
    public func isOnlineElsewhere(_ user: UserID) -> Bool { false }
    public var settleTime: Duration { .zero }
}

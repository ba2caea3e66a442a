import ParleyCore

/// Hands events, once their transaction has committed, to the live connections that should get
/// them. `LocalEventFanout`: this process's (one node). `SharedEventFanout`: every node's, through
/// the database the nodes share (PostgreSQL).
public protocol EventFanout: Sendable {
    func committed(_ events: [StoredEvent])
    /// A connection of `user` has opened on this node and was told that the newest number of
    /// their sequence was `seq` (its hello): live events after it are theirs.
    func connected(_ user: UserID, after seq: Int64)
}

extension EventFanout {
    public func connected(_ user: UserID, after seq: Int64) {}
}

/// One node: straight to this process's connections, in the caller's task.
public struct LocalEventFanout: EventFanout {
    public let hub: EventHub

    public init(hub: EventHub) { self.hub = hub }

    public func committed(_ events: [StoredEvent]) {
        for event in events { hub.deliver(event.frame, to: event.userID, exceptSession: event.exceptSession) }
    }
}

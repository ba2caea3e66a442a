import ParleyCore

/// Where domain services announce what happened to a user (`friend.request`, `message.new`, …).
/// The realtime gateway numbers, stores and delivers them.
public protocol EventPublisher: Sendable {
    /// Publishes `event` to every device of `users`, but never to the device `exceptSession`
    /// (live or when it syncs): for "answered elsewhere", which every device of the callee but
    /// the answering one must hear.
    func publish(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID?) async
    /// Delivers an event that is not stored nor numbered (`typing`): lost if nobody listens.
    func publishEphemeral(_ event: RealtimeEvent, to users: [UserID])
}

extension EventPublisher {
    public func publish(_ event: RealtimeEvent, to users: [UserID]) async {
        await publish(event, to: users, exceptSession: nil)
    }
}

/// Drops every event (for a process without a realtime gateway, and for tests that do not look).
public struct DiscardingEventPublisher: EventPublisher {
    public init() {}
    public func publish(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID?) async {}
    public func publishEphemeral(_ event: RealtimeEvent, to users: [UserID]) {}
}

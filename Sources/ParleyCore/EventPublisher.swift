/// Where domain services announce what happened to a user (`friend.request`, `message.new`, …).
/// The realtime gateway numbers, stores and delivers them; until it is wired in, they are dropped.
public protocol EventPublisher: Sendable {
    /// Publishes one event of `type` with a JSON-encodable payload to every device of `users`.
    func publish(type: String, payload: any Encodable & Sendable, to users: [UserID]) async
    /// Like `publish`, but never to the device `exceptSession` (live or when it syncs): for
    /// "answered elsewhere", which every device of the callee but the answering one must hear.
    func publish(type: String, payload: any Encodable & Sendable, to users: [UserID], exceptSession: SessionID?) async
    /// Delivers an event that is not stored nor numbered (`typing`): lost if nobody listens.
    func publishEphemeral(type: String, payload: any Encodable & Sendable, to users: [UserID])
}

extension EventPublisher {
    public func publish(type: String, payload: any Encodable & Sendable, to users: [UserID], exceptSession: SessionID?) async {
        await publish(type: type, payload: payload, to: users)
    }

    public func publishEphemeral(type: String, payload: any Encodable & Sendable, to users: [UserID]) {}
}

/// Drops every event (for a process without a realtime gateway, and for tests that do not look).
public struct DiscardingEventPublisher: EventPublisher {
    public init() {}
    public func publish(type: String, payload: any Encodable & Sendable, to users: [UserID]) async {}
}

/// Told when a device's realtime connection opens or its last one closes (calls keep a call
/// through a short drop-out).
public protocol DevicePresence: Sendable {
    func deviceReconnected(_ device: SessionID, user: UserID) async
    func deviceDisconnected(_ device: SessionID, user: UserID) async
}

import ParleyCore
import ParleyProtocol
import SQLKit

/// Stores events in the same transaction as the change they announce, so a crash keeps both or
/// neither, and delivers them to live connections once that transaction has committed.
public protocol TransactionalEvents: Sendable {
    /// Numbers and stores `event` for each of `users` through `sql`, the caller's open
    /// transaction (nothing else may touch the database until it ends). Call the returned
    /// delivery after the commit, and only then.
    func store(_ event: RealtimeEvent, to users: [UserID], in sql: any SQLDatabase) async throws -> EventDelivery
}

/// Hands events, stored by a transaction that has since committed, to live connections.
public struct EventDelivery: Sendable {
    private let deliver: @Sendable () -> Void

    public init(_ deliver: @escaping @Sendable () -> Void) { self.deliver = deliver }

    public func callAsFunction() { deliver() }
}

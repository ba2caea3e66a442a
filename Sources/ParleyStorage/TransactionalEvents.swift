import ParleyCore
import ParleyProtocol

/// Stores events in the same transaction as the change they announce, so a crash keeps both or
/// neither, and delivers them to live connections once that transaction has committed.
public protocol TransactionalEvents: Sendable {
    /// Numbers and stores `event` for each of `users` in `transaction`, the caller's, and has it
    /// delivered to live connections after that transaction commits (never if it rolls back).
    func store(_ event: EncodedEvent, to users: [UserID], in transaction: Transaction) throws
}

extension TransactionalEvents {
    public func store(_ event: RealtimeEvent, to users: [UserID], in transaction: Transaction) throws {
        try store(EncodedEvent(event), to: users, in: transaction)
    }
}

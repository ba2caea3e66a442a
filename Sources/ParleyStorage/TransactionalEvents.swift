import Foundation
import ParleyCore
import ParleyProtocol

/// Stores events in the same transaction as the change they announce, so a crash keeps both or
/// neither, and delivers them to live connections once that transaction has committed.
public protocol TransactionalEvents: Sendable {
    /// Numbers and stores `event` for each of `users` in `transaction`, the caller's, and has it
    /// delivered to live connections after that transaction commits (never if it rolls back).
    func store(_ event: EncodedEvent, to users: [UserID], in transaction: Transaction) throws

    /// The same stored by the statement of another write, on PostgreSQL (each statement is a
    /// round trip there; SQLite has no INSERT inside WITH): clauses of that statement's `WITH`,
    /// after those their `condition` reads — the events are stored only when it holds. The
    /// statement joins `EventClauses.table` into its rows; `stored(_:rows:in:)` reads them.
    func clauses(storing event: EncodedEvent, to users: [UserID], when condition: String) -> EventClauses

    /// What the clauses stored, from the rows of their statement: delivered after `transaction`
    /// commits. Throws when some recipients got a number and some did not.
    func stored(_ clauses: EventClauses, rows: [Row], in transaction: Transaction) throws
}

/// `TransactionalEvents.clauses`: `sql` (its values `binds`, in order) ends with the clause
/// `table`, the events stored — each recipient's id and number, as `event_user_id` and
/// `event_seq` in the rows of the statement that joins it (`LEFT JOIN stored_events … ON TRUE`).
public struct EventClauses: Sendable {
    public static let table = "stored_events"
    /// The columns a statement selects from `table`, under the names `stored` reads.
    public static let columns = "\(table).user_id AS event_user_id, \(table).seq AS event_seq"
    public let sql: String
    public let binds: [SQLValue]
    public let event: EncodedEvent
    public let recipients: [UserID]
    public let createdAt: Date
    public let exceptSession: SessionID?

    public init(sql: String, binds: [SQLValue], event: EncodedEvent, recipients: [UserID], createdAt: Date, exceptSession: SessionID?) {
        self.sql = sql
        self.binds = binds
        self.event = event
        self.recipients = recipients
        self.createdAt = createdAt
        self.exceptSession = exceptSession
    }
}

extension TransactionalEvents {
    public func store(_ event: RealtimeEvent, to users: [UserID], in transaction: Transaction) throws {
        try store(EncodedEvent(event), to: users, in: transaction)
    }
}

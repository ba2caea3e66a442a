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

    /// The events of several changes stored by one statement, on PostgreSQL: `batch` the event of
    /// each change (by the change's number in the statement, `ordinal`) and its recipients;
    /// clauses of that statement's `WITH`, after a clause named `EventBatchClauses.changes` with a
    /// column `ord`, the changes that happened — only their events are stored, numbered in the
    /// order of their ordinals for a user who gets several. The clauses' text is the same for
    /// every batch (the statement around them can be written once). The statement selects
    /// `EventBatchClauses.rows` beside its own; `stored(_:rows:in:)` reads them.
    func clauses(storingEach batch: [EventBatchClauses.Item]) -> EventBatchClauses

    /// What the batch's clauses stored, from the statement's rows that are theirs (a non-NULL
    /// `event_user_id`; with `event_ord` and `event_seq`): delivered after `transaction` commits.
    /// Throws when some recipients of a change got a number and some did not.
    func stored(_ clauses: EventBatchClauses, rows: [Row], in transaction: Transaction) throws
}

/// `TransactionalEvents.clauses(storingEach:)`: `sql` (its values `binds`, in order) are
/// clauses of a `WITH`; `rows` names a clause after them whose rows are the events stored, with
/// the columns `ord`, `user_id` and `seq`.
public struct EventBatchClauses: Sendable {
    /// The name of the clause, before the batch's, whose rows (`ord`) are the changes made.
    public static let changes = "news"

    /// One change's event and its recipients.
    public struct Item: Sendable {
        public let ordinal: Int
        public let event: EncodedEvent
        public let recipients: [UserID]

        public init(ordinal: Int, event: EncodedEvent, recipients: [UserID]) {
            self.ordinal = ordinal
            self.event = event
            self.recipients = recipients
        }
    }

    public let sql: String
    public let binds: [SQLValue]
    public let rows: String
    public let items: [Int: Item]
    public let createdAt: Date

    public init(sql: String, binds: [SQLValue], rows: String, items: [Int: Item], createdAt: Date) {
        self.sql = sql
        self.binds = binds
        self.rows = rows
        self.items = items
        self.createdAt = createdAt
    }
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

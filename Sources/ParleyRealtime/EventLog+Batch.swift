import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage

/// The events of several changes stored by one statement on PostgreSQL (a batch of messages, see
/// `SQLChatStore.sendAll`): each recipient's head moves on once by the number of events they get,
/// and their events take the numbers in between, in the order of the changes.
extension EventLog {
    public func clauses(storingEach batch: [EventBatchClauses.Item]) -> EventBatchClauses {
        let now = clock.now()
        // As JSON (`json_to_recordset`): one statement text whatever the batch's size, prepared once.
        var recipients = JSONTextWriter(capacity: 64 * batch.count * 3), payloads = JSONTextWriter(capacity: 400 * batch.count)
        var items: [Int: EventBatchClauses.Item] = [:]
        recipients.openArray()
        payloads.openArray()
        for item in batch {
            items[item.ordinal] = item
            payloads.openElement()
            payloads.member("ord", item.ordinal)
            payloads.member("type", item.event.event.type)
            payloads.member("payload", item.event.payloadJSON)
            payloads.closeObject()
            for user in Self.ordered(item.recipients) {
                recipients.openElement()
                recipients.member("ord", item.ordinal)
                recipients.member("user_id", user.rawValue)
                recipients.closeObject()
            }
        }
        recipients.closeArray()
        payloads.closeArray()
        let binds: [SQLValue] = [
            .text(payloads.text),
            .text(recipients.text),
            .integer(now.storageMillis),
        ]
        return EventBatchClauses(sql: Self.batchSQL, binds: binds, rows: "batch_events", items: items, createdAt: now)
    }

    /// The batch's clauses (`clauses(storingEach:)`): one text, so the statement around them is
    /// written once. Heads are upserted in the order of their user
    /// ids, as `append`'s are: two statements that share heads take their locks in one order.
    /// Each recipient's new head is looked up in one JSON object (`batch_lasts`, `MATERIALIZED`:
    /// inlined, the object was made again for every row), not joined:
    /// PostgreSQL takes a clause's rows for one and joins two such clauses by a nested loop, whose
    /// cost grows with the square of the batch.
    static let batchSQL = """
        batch_payloads AS (
            SELECT * FROM json_to_recordset(CAST(? AS JSON)) AS p (ord BIGINT, type TEXT, payload TEXT)),
        batch_recipients AS (
            SELECT r.ord, r.user_id, row_number() OVER (PARTITION BY r.user_id ORDER BY r.ord) AS k,
                   count(*) OVER (PARTITION BY r.user_id) AS n
            FROM json_to_recordset(CAST(? AS JSON)) AS r (ord BIGINT, user_id TEXT)
            WHERE r.ord IN (SELECT ord FROM \(EventBatchClauses.changes))),
        batch_heads AS (
            INSERT INTO user_event_heads (user_id, last_seq)
            SELECT user_id, max(n) FROM batch_recipients GROUP BY user_id ORDER BY user_id
            ON CONFLICT (user_id) DO UPDATE SET last_seq = user_event_heads.last_seq + excluded.last_seq
            RETURNING user_id, last_seq),
        batch_lasts AS MATERIALIZED (
            SELECT jsonb_object_agg(user_id, last_seq) AS m FROM batch_heads),
        batch_events AS (
            SELECT r.ord, r.user_id, CAST(l.m ->> r.user_id AS BIGINT) - r.n + r.k AS seq, p.type, p.payload
            FROM batch_recipients r CROSS JOIN batch_lasts l JOIN batch_payloads p ON p.ord = r.ord),
        batch_stored AS (
            INSERT INTO user_events (user_id, seq, type, payload, created_at, except_session)
            SELECT user_id, seq, type, payload, ?, CAST(NULL AS TEXT) FROM batch_events RETURNING user_id)
        """

    public func stored(_ clauses: EventBatchClauses, rows: [Row], in transaction: Transaction) throws {
        var numbers: [Int: [String: Int64]] = [:]
        for row in rows {
            guard let user = try row.decode(column: "event_user_id", as: String?.self) else { continue }
            let ordinal = Int(try row.decode(column: "ord", as: Int64.self))
            numbers[ordinal, default: [:]][user] = try row.decode(column: "event_seq", as: Int64.self)
        }
        // In the order of the changes: a user's events in the order of their numbers.
        var stored: [StoredEvent] = []
        for ordinal in numbers.keys.sorted() {
            guard let item = clauses.items[ordinal], let numbered = numbers[ordinal] else { continue }
            stored += try Self.events(item.event, numbered: numbered, for: Self.ordered(item.recipients), at: clauses.createdAt,
                                      exceptSession: nil)
        }
        delivered(stored, after: transaction)
    }
}

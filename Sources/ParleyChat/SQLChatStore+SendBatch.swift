import Foundation
import Synchronization
import ParleyCore
import ParleyFriends
import ParleyProtocol
import ParleyStorage

/// Several sends in one go on PostgreSQL (`SendBatcher` gathers them): their contexts in one
/// statement, each decided, then those that are stored in one statement committing alone — two
/// round trips for the batch however many sends it holds, where each send alone costs two. A
/// statement's fixed costs on both sides (the round trip, starting the executor, the commit, the
/// node's handling of the answer) are what two nodes on one PostgreSQL spend most on.
extension SQLChatStore {
    /// One send of a batch: what `appendMessage(_:announce:deciding:)` is given.
    struct BatchedSend: Sendable {
        let message: MessageRecord
        let announce: EncodedEvent
        let decide: @Sendable (SendContext?) throws -> [UserID]?

        /// Two sends of one message (a device that sent again before the answer) never share a
        /// batch: the second finds the first stored.
        var key: String { "\(message.dialogID.rawValue)\u{0}\(message.senderID.rawValue)\u{0}\(message.clientMessageID)" }
    }

    /// The sends' outcomes, in their order: as `appendMessage(_:announce:deciding:)` answers each.
    /// No two may be one message (`BatchedSend.key`).
    static func sendAll(_ sends: [BatchedSend], events: any TransactionalEvents, in sql: Transaction) throws
        -> [Result<SettledMessage?, any Error>] {
        let contexts = try sendContexts(sends.map { ($0.message.dialogID, $0.message.senderID) }, in: sql)
        var outcomes: [Result<SettledMessage?, any Error>] = Array(repeating: .success(nil), count: sends.count)
        var accepted: [(ordinal: Int, context: SendContext, recipients: [UserID])] = []
        for (ordinal, send) in sends.enumerated() {
            let context = contexts[ordinal]
            do {
                guard let recipients = try send.decide(context), let context else { continue }
                accepted.append((ordinal, context, recipients))
            } catch {
                outcomes[ordinal] = .failure(error)
            }
        }
        if accepted.isEmpty { return outcomes }
        let items = accepted.map { EventBatchClauses.Item(ordinal: $0.ordinal, event: sends[$0.ordinal].announce, recipients: $0.recipients) }
        let clauses = events.clauses(storingEach: items)
        let rows = try sql.query(writeStatement(clauses), binding: [.text(batchJSON(accepted.map { ($0.ordinal, sends[$0.ordinal].message) }))] + clauses.binds)
        var numbered: [Int: Int64] = [:], earlier: [Int: MessageRecord] = [:]
        for row in rows where try row.decode(column: "event_user_id", as: String?.self) == nil {
            let ordinal = Int(try row.decode(column: "ord", as: Int64.self))
            if let seq = try row.decode(column: "new_seq", as: Int64?.self) {
                numbered[ordinal] = seq
            } else {
                earlier[ordinal] = try decodeMessage(row)
            }
        }
        try events.stored(clauses, rows: rows, in: sql)
        for (ordinal, context, _) in accepted {
            if let seq = numbered[ordinal] {
                var message = sends[ordinal].message
                message.seq = seq
                outcomes[ordinal] = .success(SettledMessage(message: message, isNew: true, members: context.members))
            } else if let message = earlier[ordinal] {
                outcomes[ordinal] = .success(SettledMessage(message: message, isNew: false, members: context.members))
            } else {
                outcomes[ordinal] = .failure(ChatErrors.dialogNotFound)   // deleted since its context was read
            }
        }
        return outcomes
    }

    /// What `sendContextInOneStatement` reads, for each (dialog, sender) in one statement: nil
    /// where there is no such dialog. Each table is looked up by its key for each send (`LATERAL`,
    /// kept apart by `OFFSET 0`): PostgreSQL takes the batch for 100 rows, and would otherwise
    /// hash whole tables for a handful.
    static func sendContexts(_ sends: [(dialog: DialogID, sender: UserID)], in sql: some SQLQuerying) throws -> [SendContext?] {
        var input = JSONTextWriter(capacity: 80 * sends.count)
        input.openArray()
        for (ordinal, send) in sends.enumerated() {
            input.openElement()
            input.member("ord", ordinal)
            input.member("dialog_id", send.dialog.rawValue)
            input.member("sender_id", send.sender.rawValue)
            input.closeObject()
        }
        input.closeArray()
        let standing = SQLFriendStore.standingColumns(ofSender: "i.sender_id", member: "m.user_id", toward: "d.type = 'private'")
        let rows = try sql.query("""
            SELECT i.ord AS ord, \(Self.qualifiedDialogColumns), \(Self.joinedRequestColumns), \(Self.joinedMemberColumns), \(standing)
            FROM json_to_recordset(CAST(? AS JSON)) AS i (ord BIGINT, dialog_id TEXT, sender_id TEXT)
            CROSS JOIN LATERAL (SELECT * FROM dialogs WHERE id = i.dialog_id OFFSET 0) d
            LEFT JOIN LATERAL (SELECT * FROM message_requests WHERE dialog_id = d.id OFFSET 0) r ON TRUE
            LEFT JOIN LATERAL (SELECT * FROM dialog_members WHERE dialog_id = d.id OFFSET 0) m ON TRUE
            ORDER BY i.ord, m.joined_at, m.user_id
            """, binding: [.text(input.text)])
        var contexts: [SendContext?] = Array(repeating: nil, count: sends.count)
        var start = rows.startIndex
        while start < rows.endIndex {
            let ordinal = Int(try rows[start].decode(column: "ord", as: Int64.self))
            var end = start + 1
            while end < rows.endIndex, Int(try rows[end].decode(column: "ord", as: Int64.self)) == ordinal { end += 1 }
            guard sends.indices.contains(ordinal) else { throw StorageError.unexpectedNull }
            contexts[ordinal] = try context(fromRows: rows[start..<end], sender: sends[ordinal].sender)
            start = end
        }
        return contexts
    }

    /// The messages of a batch as the write's JSON (`json_to_recordset`): one statement text
    /// whatever the batch's size, prepared once per connection.
    private static func batchJSON(_ messages: [(ordinal: Int, message: MessageRecord)]) -> String {
        var json = JSONTextWriter(capacity: 320 * messages.count)
        json.openArray()
        for (ordinal, m) in messages {
            json.openElement()
            json.member("ord", ordinal)
            json.member("id", m.id.rawValue)
            json.member("dialog_id", m.dialogID.rawValue)
            json.member("sender_id", m.senderID.rawValue)
            json.member("client_message_id", m.clientMessageID)
            json.member("kind", m.kind.rawValue)
            json.member("text", ifPresent: m.text)
            json.member("attachment_id", ifPresent: m.attachmentID?.rawValue)
            json.member("call", ifPresent: Self.json(m.call))
            json.member("location", ifPresent: Self.json(m.location))
            json.member("forwarded_from", ifPresent: Self.json(m.forwardedFrom))
            json.member("created_at", m.createdAt.storageMillis)
            json.closeObject()
        }
        json.closeArray()
        return json.text
    }

    /// `writeInOneStatement` for a batch. Each clause reaches a table by key, never by a plan
    /// PostgreSQL may choose to scan — its generic plan, made while a table is small, is kept as
    /// it grows (SendBatchTests checks the dialogs'):
    /// - messages sent before under their client ids are answered (`existing`, one lookup each
    ///   on their unique index);
    /// - each dialog's counter moves on once by its count of new messages, which take the numbers
    ///   in between in the batch's order; the dialogs' rows are locked in the order of their ids
    ///   first, so two batches that share dialogs do not deadlock, and the update joins the
    ///   locked rows by key (not `= ANY` of their ids, costed as ten lookups: a scan, on a small
    ///   table);
    /// - a dialog's first number and a sender's newest are looked up in a JSON object made once
    ///   (`bases`, `senders`; `MATERIALIZED`, or it is made again for every row), not joined:
    ///   clauses are taken for one row each and joined by nested loops, a cost that grows with
    ///   the square of the batch.
    ///
    /// Its rows: a new message's `ord` and `new_seq`, an earlier one's `ord` and columns, and the
    /// events' (`event_user_id`, `event_seq`).
    static func writeStatement(_ clauses: EventBatchClauses) -> String {
        written.withLock { written in
            if let written, written.clauses == clauses.sql, written.rows == clauses.rows { return written.statement }
            let statement = writing(clauses)
            written = (clauses.sql, clauses.rows, statement)
            return statement
        }
    }

    /// The last write statement written, for the event clauses' text it was written around: the
    /// same for every batch (`TransactionalEvents.clauses(storingEach:)`).
    private static let written = Mutex<(clauses: String, rows: String, statement: String)?>(nil)

    private static func writing(_ clauses: EventBatchClauses) -> String {
        let typed: [(String, String)] = [
            ("id", "TEXT"), ("dialog_id", "TEXT"), ("seq", "BIGINT"), ("sender_id", "TEXT"), ("client_message_id", "TEXT"),
            ("kind", "TEXT"), ("text", "TEXT"), ("attachment_id", "TEXT"), ("call", "TEXT"), ("location", "TEXT"),
            ("forwarded_from", "TEXT"), ("created_at", "BIGINT"),
        ]
        let noMessage = typed.map { "CAST(NULL AS \($1)) AS \($0)" }.joined(separator: ", ")
        let earlier = typed.map { "e.\($0.0)" }.joined(separator: ", ")
        let noMessageAgain = typed.map { "CAST(NULL AS \($0.1))" }.joined(separator: ", ")
        let inputColumns = typed.filter { $0.0 != "seq" }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        let inserted = typed.map { "f.\($0.0)" }.joined(separator: ", ")
        return """
            WITH input AS (
                SELECT * FROM json_to_recordset(CAST(? AS JSON)) AS i (ord BIGINT, \(inputColumns))),
            existing AS (
                SELECT i.ord, m.* FROM input i CROSS JOIN LATERAL (
                    SELECT * FROM messages WHERE dialog_id = i.dialog_id AND sender_id = i.sender_id AND client_message_id = i.client_message_id
                    LIMIT 1) m),
            fresh AS (
                SELECT i.*, row_number() OVER (PARTITION BY i.dialog_id ORDER BY i.ord) AS k
                FROM input i WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.ord = i.ord)),
            counted AS (
                SELECT dialog_id, count(*) AS n, max(created_at) AS at FROM fresh GROUP BY dialog_id),
            locked AS (
                SELECT l.id, c.n, c.at FROM (SELECT dialog_id, n, at FROM counted ORDER BY dialog_id) c
                CROSS JOIN LATERAL (SELECT id FROM dialogs WHERE id = c.dialog_id FOR UPDATE) l),
            bumped AS (
                UPDATE dialogs d SET last_message_seq = d.last_message_seq + l.n, updated_at = l.at
                FROM locked l WHERE d.id = l.id
                RETURNING d.id, d.last_message_seq - l.n AS base),
            bases AS MATERIALIZED (
                SELECT jsonb_object_agg(id, base) AS m FROM bumped),
            numbered AS (
                SELECT f.*, CAST(b.m ->> f.dialog_id AS BIGINT) + f.k AS seq FROM fresh f CROSS JOIN bases b
                WHERE b.m ->> f.dialog_id IS NOT NULL),
            inserted AS (
                INSERT INTO messages (\(Self.messageColumns))
                SELECT \(inserted) FROM numbered f
                RETURNING id),
            news AS (   -- EventBatchClauses.changes: the event clauses store the events of these
                SELECT ord, dialog_id, sender_id, seq FROM numbered),
            senders AS MATERIALIZED (
                SELECT jsonb_object_agg(dialog_id || ' ' || sender_id, seq) AS m
                FROM (SELECT dialog_id, sender_id, max(seq) AS seq FROM news GROUP BY dialog_id, sender_id) s),
            members AS (
                UPDATE dialog_members dm SET hidden = 0,
                    read_seq = COALESCE(CAST(s.m ->> (dm.dialog_id || ' ' || dm.user_id) AS BIGINT), dm.read_seq)
                FROM senders s
                WHERE dm.dialog_id IN (SELECT dialog_id FROM news)
                  AND (dm.hidden <> 0 OR s.m ->> (dm.dialog_id || ' ' || dm.user_id) IS NOT NULL)),
            \(clauses.sql)
            SELECT n.ord AS ord, n.seq AS new_seq, \(noMessage), CAST(NULL AS TEXT) AS event_user_id, CAST(NULL AS BIGINT) AS event_seq
            FROM news n
            UNION ALL
            SELECT e.ord, CAST(NULL AS BIGINT), \(earlier), CAST(NULL AS TEXT), CAST(NULL AS BIGINT) FROM existing e
            UNION ALL
            SELECT s.ord, CAST(NULL AS BIGINT), \(noMessageAgain), s.user_id, s.seq FROM \(clauses.rows) s
            """
    }
}

import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage

extension SQLChatStore {
    static let messageColumns = "id, dialog_id, seq, sender_id, client_message_id, kind, text, attachment_id, call, location, forwarded_from, created_at"

    /// A small value kept as a JSON column (a call record, a location, a forward's origin).
    static func json<T: Encodable>(_ value: T?) -> String? {
        value.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    static func fromJSON<T: Decodable>(_ row: Row, _ column: String, as type: T.Type) throws -> T? {
        try row.decode(column: column, as: String?.self).flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }

    static func decodeMessage(_ row: Row) throws -> MessageRecord {
        MessageRecord(
            id: MessageID(rawValue: try row.decode(column: "id", as: String.self)),
            dialogID: DialogID(rawValue: try row.decode(column: "dialog_id", as: String.self)),
            seq: try row.decode(column: "seq", as: Int64.self),
            senderID: UserID(rawValue: try row.decode(column: "sender_id", as: String.self)),
            clientMessageID: try row.decode(column: "client_message_id", as: String.self),
            kind: MessageKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .text,
            text: try row.decode(column: "text", as: String?.self),
            attachmentID: try row.decode(column: "attachment_id", as: String?.self).map(AttachmentID.init(rawValue:)),
            call: try fromJSON(row, "call", as: CallRecord.self),
            location: try fromJSON(row, "location", as: Location.self),
            forwardedFrom: try fromJSON(row, "forwarded_from", as: ForwardedFrom.self),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    public func appendMessage(
        _ message: MessageRecord, announce: EncodedEvent, to recipients: [UserID],
        opening request: OpenedRequest?
    ) async throws -> (message: MessageRecord, isNew: Bool) {
        try await database.write { [events] sql in
            try Self.insert(message, announce: announce, to: recipients, opening: request, events: events, in: sql)
        }
    }

    public func appendMessage(
        _ message: MessageRecord, announce: EncodedEvent, deciding decide: @escaping @Sendable (SendContext?) throws -> [UserID]?
    ) async throws -> SettledMessage? {
        let send = BatchedSend(message: message, announce: announce, decide: decide)
        if let batcher { return try await batcher.send(send) }
        return try await Self.appendAlone(send, database, events)
    }

    /// A batch of sends (`SendBatcher`): one alone as `appendAlone`; several with `sendAll`,
    /// and if its statements fail as a whole (nothing of it committed: a message sent at once
    /// through two nodes, say), each alone.
    static func runBatch(_ sends: [BatchedSend], _ database: Database, _ events: any TransactionalEvents, _ figures: BatchFigures) async
        -> [Result<SettledMessage?, any Error>] {
        figures.size.record(sends.count)
        if sends.count > 1 {
            do {
                return try await database.writeAutocommit { sql in try sendAll(sends, events: events, in: sql) }
            } catch {
                // Each send's own failure, if it has one, is its caller's answer below.
                figures.fallbacks.increment()
                figures.logger.notice("message batch failed as a whole; its sends go alone",
                                      metadata: ["sends": "\(sends.count)", "error": "\(error)"])
            }
        }
        return await withTaskGroup(of: (Int, Result<SettledMessage?, any Error>).self) { group in
            for (index, send) in sends.enumerated() {
                group.addTask {
                    do { return (index, .success(try await appendAlone(send, database, events))) } catch { return (index, .failure(error)) }
                }
            }
            var outcomes: [Result<SettledMessage?, any Error>] = Array(repeating: .success(nil), count: sends.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    /// One send: its reads, then one statement that writes (`insert`, with no request to open):
    /// on PostgreSQL that statement commits alone, two round trips fewer than a transaction.
    static func appendAlone(_ send: BatchedSend, _ database: Database, _ events: any TransactionalEvents) async throws
        -> SettledMessage? {
        let (message, announce, decide) = (send.message, send.announce, send.decide)
        return try await database.writeAutocommit { [events] sql in
            let context = try Self.sendContext(dialog: message.dialogID, sender: message.senderID, in: sql)
            guard let recipients = try decide(context), let context else { return nil }
            let (stored, isNew) = try Self.insert(message, announce: announce, to: recipients, opening: nil, events: events, in: sql)
            return SettledMessage(message: stored, isNew: isNew, members: context.members)
        }
    }

    /// The message (or the one stored before under its client id), its event for `recipients`
    /// and the request it opens, in the caller's transaction.
    private static func insert(
        _ message: MessageRecord, announce: EncodedEvent, to recipients: [UserID], opening request: OpenedRequest?,
        events: any TransactionalEvents, in sql: Transaction
    ) throws -> (message: MessageRecord, isNew: Bool) {
        var stored = message
        if sql.kind == .postgresql {
            // The message and its events in one statement: each is a round trip there.
            let clauses = events.clauses(storing: announce, to: recipients, when: "EXISTS (SELECT 1 FROM inserted)")
            let (written, rows) = try writeInOneStatement(message, storing: clauses, sql)
            switch written {
            case .existing(let existing): return (existing, false)
            case .numbered(let seq): stored.seq = seq
            }
            try events.stored(clauses, rows: rows, in: sql)
        } else {
            switch try write(message, sql) {
            case .existing(let existing): return (existing, false)
            case .numbered(let seq): stored.seq = seq
            }
            try events.store(announce, to: recipients, in: sql)
        }
        if let request, try insertRequest(request.request, firstSeq: stored.seq, sql) {
            try events.store(request.announce(stored), to: [request.request.to], in: sql)
        }
        return (stored, true)
    }

    /// What writing a message found: the one sent before under its client id, or the number the
    /// new one got.
    private enum Written {
        case existing(MessageRecord)
        case numbered(Int64)
    }

    /// The message's row, with the number the dialog's counter moves on to, and its members'
    /// rows it changes: a new message brings a cleared conversation back, and the sender has read
    /// their own message (only the rows that change: the sender's, and those of members who had
    /// hidden the dialog). Nothing when a message was sent before under this client id.
    private static func write(_ message: MessageRecord, _ sql: Transaction) throws -> Written {
        let key: [SQLValue] = [message.dialogID.rawValue.sqlValue, message.senderID.rawValue.sqlValue, message.clientMessageID.sqlValue]
        if let existing = try sql.query("""
            SELECT \(Self.messageColumns) FROM messages WHERE dialog_id = ? AND sender_id = ? AND client_message_id = ?
            """, binding: key).first {
            return .existing(try decodeMessage(existing))
        }
        guard let seq = try sql.scalar("""
            UPDATE dialogs SET last_message_seq = last_message_seq + 1, updated_at = ? WHERE id = ? RETURNING last_message_seq
            """, message.createdAt.storageMillis, message.dialogID.rawValue, as: Int64.self)
        else { throw ChatErrors.dialogNotFound }
        try sql.send("INSERT INTO messages (\(Self.messageColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", binding: [
            message.id.rawValue.sqlValue, message.dialogID.rawValue.sqlValue, seq.sqlValue, message.senderID.rawValue.sqlValue,
            message.clientMessageID.sqlValue, message.kind.rawValue.sqlValue, message.text.sqlValue,
            message.attachmentID?.rawValue.sqlValue ?? .null, json(message.call).sqlValue, json(message.location).sqlValue,
            json(message.forwardedFrom).sqlValue, message.createdAt.storageMillis.sqlValue,
        ])
        try sql.send("""
            UPDATE dialog_members SET hidden = 0, read_seq = CASE WHEN user_id = ? THEN ? ELSE read_seq END
            WHERE dialog_id = ? AND (user_id = ? OR hidden <> 0)
            """, binding: [message.senderID.rawValue.sqlValue, seq.sqlValue, message.dialogID.rawValue.sqlValue,
                           message.senderID.rawValue.sqlValue])
        return .numbered(seq)
    }

    /// `write` and the events of the message (`clauses`, stored only when it is new) as one
    /// statement, for PostgreSQL: each statement is a round trip there, waking the server and
    /// this node (SQLite has no INSERT or UPDATE inside WITH). The counter moves only when no
    /// message was sent under the client id; the message's row is inserted, and the members'
    /// rows changed, only when it moved. Its rows: the earlier message's columns, or the new
    /// number (`new_seq`) and an event stored on each, or neither when there is no such dialog.
    private static func writeInOneStatement(
        _ message: MessageRecord, storing clauses: EventClauses, _ sql: Transaction
    ) throws -> (Written, [Row]) {
        let earlier = messageColumns.split(separator: ", ").map { "e.\($0) AS \($0)" }.joined(separator: ", ")
        // The nullable columns are cast: PostgreSQL cannot tell a NULL's type in a SELECT list.
        let rows = try sql.query("""
            WITH existing AS (
                SELECT \(Self.messageColumns) FROM messages WHERE dialog_id = ? AND sender_id = ? AND client_message_id = ?),
            bumped AS (
                UPDATE dialogs SET last_message_seq = last_message_seq + 1, updated_at = ?
                WHERE id = ? AND NOT EXISTS (SELECT 1 FROM existing) RETURNING last_message_seq),
            inserted AS (
                INSERT INTO messages (\(Self.messageColumns))
                SELECT ?, ?, last_message_seq, ?, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT),
                       CAST(? AS TEXT), ? FROM bumped
                RETURNING seq),
            members AS (
                UPDATE dialog_members SET hidden = 0, read_seq = CASE WHEN user_id = ? THEN inserted.seq ELSE read_seq END
                FROM inserted WHERE dialog_id = ? AND (user_id = ? OR hidden <> 0)),
            \(clauses.sql)
            SELECT \(earlier), i.seq AS new_seq, \(EventClauses.columns) FROM (SELECT 1 AS one) AS one
            LEFT JOIN existing e ON TRUE LEFT JOIN inserted i ON TRUE LEFT JOIN \(EventClauses.table) ON TRUE
            """, binding: [
                message.dialogID.rawValue.sqlValue, message.senderID.rawValue.sqlValue, message.clientMessageID.sqlValue,
                message.createdAt.storageMillis.sqlValue, message.dialogID.rawValue.sqlValue,
                message.id.rawValue.sqlValue, message.dialogID.rawValue.sqlValue, message.senderID.rawValue.sqlValue,
                message.clientMessageID.sqlValue, message.kind.rawValue.sqlValue, message.text.sqlValue,
                message.attachmentID?.rawValue.sqlValue ?? .null, json(message.call).sqlValue, json(message.location).sqlValue,
                json(message.forwardedFrom).sqlValue, message.createdAt.storageMillis.sqlValue,
                message.senderID.rawValue.sqlValue, message.dialogID.rawValue.sqlValue, message.senderID.rawValue.sqlValue,
            ] + clauses.binds)
        guard let row = rows.first else { throw ChatErrors.dialogNotFound }   // it always has one
        if let seq = try row.decode(column: "new_seq", as: Int64?.self) { return (.numbered(seq), rows) }
        guard try row.decode(column: "id", as: String?.self) != nil else { throw ChatErrors.dialogNotFound }
        return (.existing(try decodeMessage(row)), rows)
    }

    public func message(id: MessageID) async throws -> MessageRecord? {
        try await database.read { sql in
            try sql.first("SELECT \(Self.messageColumns) FROM messages WHERE id = ?", id.rawValue).map(Self.decodeMessage)
        }
    }

    public func messages(in dialog: DialogID, after: Int64, before: Int64?, limit: Int) async throws -> [MessageRecord] {
        try await database.read { sql in
            try sql.query("""
                SELECT \(Self.messageColumns) FROM messages WHERE dialog_id = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?
                """, dialog.rawValue, after, before ?? Int64.max, limit).map(Self.decodeMessage)
        }
    }

    public func lastMessage(in dialog: DialogID, after: Int64, excluding senders: Set<UserID>) async throws -> MessageRecord? {
        try await database.read { sql in
            let excluded = senders.isEmpty ? "" : " AND sender_id NOT IN (\(sqlPlaceholders(senders.count)))"
            return try sql.query("""
                SELECT \(Self.messageColumns) FROM messages WHERE dialog_id = ? AND seq > ?\(excluded) ORDER BY seq DESC LIMIT 1
                """, binding: [dialog.rawValue.sqlValue, after.sqlValue] + senders.map(\.rawValue.sqlValue)).first.map(Self.decodeMessage)
        }
    }

    public func markRead(_ dialog: DialogID, by user: UserID, upTo seq: Int64) async throws -> Bool {
        try await database.write { sql in
            try sql.execute("UPDATE dialog_members SET read_seq = ? WHERE dialog_id = ? AND user_id = ? AND read_seq < ?",
                            seq, dialog.rawValue, user.rawValue, seq) > 0
        }
    }

    public func unreadCount(_ dialog: DialogID, for membership: Membership, ignoring senders: Set<UserID>) async throws -> Int {
        try await database.read { sql in
            let ignored = senders.isEmpty ? "" : " AND sender_id NOT IN (\(sqlPlaceholders(senders.count)))"
            let binds: [SQLValue] = [dialog.rawValue.sqlValue, max(membership.readSeq, membership.clearedSeq).sqlValue,
                                     membership.userID.rawValue.sqlValue] + senders.map(\.rawValue.sqlValue)
            return try sql.query("SELECT COUNT(*) FROM messages WHERE dialog_id = ? AND seq > ? AND sender_id <> ?" + ignored,
                                 binding: binds).first.map { try $0.first(as: Int.self) } ?? 0
        }
    }

    public func unreadDialogCount(of user: UserID, ignoringInGroups senders: Set<UserID>) async throws -> Int {
        try await database.read { sql in
            // Per dialect: the larger of two values is MAX(a, b) in SQLite, GREATEST(a, b) in PostgreSQL.
            let greatest = sql.kind == .sqlite ? "MAX" : "GREATEST"
            let ignored = senders.isEmpty ? "" : """
                 AND NOT (messages.sender_id IN (\(sqlPlaceholders(senders.count)))
                          AND EXISTS (SELECT 1 FROM dialogs WHERE dialogs.id = m.dialog_id AND dialogs.type = 'group'))
                """
            return try sql.query("""
                SELECT COUNT(*) FROM dialog_members m WHERE m.user_id = ? AND m.hidden = 0 AND \(Self.notAWaitingRequest)
                AND EXISTS (SELECT 1 FROM messages WHERE messages.dialog_id = m.dialog_id
                            AND messages.seq > \(greatest)(m.read_seq, m.cleared_seq) AND messages.sender_id <> m.user_id\(ignored))
                """, binding: [user.rawValue.sqlValue] + senders.map(\.rawValue.sqlValue)).first.map { try $0.first(as: Int.self) } ?? 0
        }
    }

    static let attachmentColumns = "id, uploader_id, hash, kind, content_type, size, duration_ms, width, height, created_at"

    static func decodeAttachment(_ row: Row) throws -> AttachmentRecord {
        AttachmentRecord(
            id: AttachmentID(rawValue: try row.decode(column: "id", as: String.self)),
            uploaderID: UserID(rawValue: try row.decode(column: "uploader_id", as: String.self)),
            hash: try row.decode(column: "hash", as: String.self),
            kind: try row.decode(column: "kind", as: String.self),
            contentType: try row.decode(column: "content_type", as: String.self),
            size: try row.decode(column: "size", as: Int.self),
            durationMs: try row.decode(column: "duration_ms", as: Int?.self),
            width: try row.decode(column: "width", as: Int?.self),
            height: try row.decode(column: "height", as: Int?.self),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    public func insertAttachment(_ a: AttachmentRecord) async throws {
        try await database.write { sql in
            try sql.execute("INSERT INTO attachments (\(Self.attachmentColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            a.id.rawValue, a.uploaderID.rawValue, a.hash, a.kind, a.contentType, a.size, a.durationMs, a.width,
                            a.height, a.createdAt.storageMillis)
        }
    }

    public func insertAttachment(_ a: AttachmentRecord, withinQuota quota: Int) async throws -> Bool {
        // The casts type the nullable columns for PostgreSQL, which cannot tell a NULL's type from a SELECT list.
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO attachments (\(Self.attachmentColumns)) SELECT ?, ?, ?, ?, ?, ?, CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS INTEGER), ?
                WHERE (SELECT COALESCE(SUM(size), 0) FROM attachments WHERE uploader_id = ?) + ? <= ?
                """, a.id.rawValue, a.uploaderID.rawValue, a.hash, a.kind, a.contentType, a.size, a.durationMs, a.width,
                a.height, a.createdAt.storageMillis, a.uploaderID.rawValue, a.size, quota) == 1
        }
    }

    public func attachmentBytes(uploadedBy user: UserID) async throws -> Int {
        try await database.read { sql in
            try sql.first("SELECT COALESCE(SUM(size), 0) AS total FROM attachments WHERE uploader_id = ?", user.rawValue)?
                .decode(column: "total", as: Int.self) ?? 0
        }
    }

    public func attachment(id: AttachmentID) async throws -> AttachmentRecord? {
        try await attachments(ids: [id]).first
    }

    public func attachments(ids: [AttachmentID]) async throws -> [AttachmentRecord] {
        if ids.isEmpty { return [] }
        return try await database.read { sql in
            try sql.query("SELECT \(Self.attachmentColumns) FROM attachments WHERE id IN (\(sqlPlaceholders(ids.count)))",
                          binding: ids.map(\.rawValue.sqlValue)).map(Self.decodeAttachment)
        }
    }

    public func isReferenced(_ attachment: AttachmentID) async throws -> Bool {
        try await database.read { sql in
            try sql.first("""
                SELECT 1 WHERE EXISTS (SELECT 1 FROM messages WHERE attachment_id = ?)
                OR EXISTS (SELECT 1 FROM dialogs WHERE avatar_attachment_id = ?)
                """, attachment.rawValue, attachment.rawValue) != nil
        }
    }

    public func deleteAttachment(_ attachment: AttachmentID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM attachments WHERE id = ?", attachment.rawValue)
        }
    }

    public func attachmentCount(hash: String) async throws -> Int {
        try await database.read { sql in
            try sql.scalar("SELECT COUNT(*) FROM attachments WHERE hash = ?", hash, as: Int.self) ?? 0
        }
    }

    public func memberSeesAttachment(_ attachment: AttachmentID, user: UserID) async throws -> Bool {
        try await database.read { sql in
            try sql.first("""
                SELECT 1 FROM dialog_members m WHERE m.user_id = ? AND (
                  EXISTS (SELECT 1 FROM messages x WHERE x.dialog_id = m.dialog_id AND x.attachment_id = ? AND x.seq > m.cleared_seq)
                  OR EXISTS (SELECT 1 FROM dialogs d WHERE d.id = m.dialog_id AND d.avatar_attachment_id = ?))
                LIMIT 1
                """, user.rawValue, attachment.rawValue, attachment.rawValue) != nil
        }
    }
}

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
        try await database.write { [events] sql in
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
        let call = json(message.call), location = json(message.location), forwardedFrom = json(message.forwardedFrom)
        // The message sent before under this client id, if any; else the dialog's counter moves
        // on and says the new number — the update stands back when the message exists, so
        // both go with one wait.
        let key: [SQLValue] = [message.dialogID.rawValue.sqlValue, message.senderID.rawValue.sqlValue, message.clientMessageID.sqlValue]
        let found = try sql.query(each: [
            SQLStatement("""
                SELECT \(Self.messageColumns) FROM messages WHERE dialog_id = ? AND sender_id = ? AND client_message_id = ?
                """, binding: key),
            SQLStatement("""
                UPDATE dialogs SET last_message_seq = last_message_seq + 1, updated_at = ? WHERE id = ? AND NOT EXISTS
                (SELECT 1 FROM messages WHERE dialog_id = ? AND sender_id = ? AND client_message_id = ?) RETURNING last_message_seq
                """, binding: [message.createdAt.storageMillis.sqlValue, message.dialogID.rawValue.sqlValue] + key),
        ])
        if let existing = found[0].first { return (try decodeMessage(existing), false) }
        guard let seq = try found[1].first?.first(as: Int64.self) else { throw ChatErrors.dialogNotFound }
        var stored = message
        stored.seq = seq
        // The rest is written without waiting for each answer (`send`): one wait on PostgreSQL.
        let insert = "INSERT INTO messages (\(Self.messageColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let row: [SQLValue] = [
            stored.id.rawValue.sqlValue, stored.dialogID.rawValue.sqlValue, stored.seq.sqlValue, stored.senderID.rawValue.sqlValue,
            stored.clientMessageID.sqlValue, stored.kind.rawValue.sqlValue, stored.text.sqlValue, stored.attachmentID?.rawValue.sqlValue ?? .null,
            call.sqlValue, location.sqlValue, forwardedFrom.sqlValue, stored.createdAt.storageMillis.sqlValue,
        ]
        // A new message brings a cleared conversation back; the sender has read their own message.
        // Only the rows that change: the sender's, and those of members who had hidden the dialog.
        let members = """
            UPDATE dialog_members SET hidden = 0, read_seq = CASE WHEN user_id = ? THEN ? ELSE read_seq END
            WHERE dialog_id = ? AND (user_id = ? OR hidden <> 0)
            """
        let memberValues: [SQLValue] = [stored.senderID.rawValue.sqlValue, stored.seq.sqlValue, stored.dialogID.rawValue.sqlValue,
                                        stored.senderID.rawValue.sqlValue]
        if sql.kind == .postgresql {
            // One statement, not two: each costs the server and this node a wake-up of their own.
            try sql.send("WITH inserted AS (\(insert)) " + members, binding: row + memberValues)
        } else {
            // SQLite has no INSERT inside WITH (and no server to wake).
            try sql.send(insert, binding: row)
            try sql.send(members, binding: memberValues)
        }
        try events.store(announce, to: recipients, in: sql)
        if let request, try insertRequest(request.request, firstSeq: stored.seq, sql) {
            try events.store(request.announce(stored), to: [request.request.to], in: sql)
        }
        return (stored, true)
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

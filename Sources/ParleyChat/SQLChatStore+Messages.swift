import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage
import SQLKit

extension SQLChatStore {
    static let messageColumns = ["id", "dialog_id", "seq", "sender_id", "client_message_id", "kind", "text", "attachment_id", "call", "created_at"]

    static func decodeMessage(_ row: any SQLRow) throws -> MessageRecord {
        let call = try row.decode(column: "call", as: String?.self).flatMap {
            try? JSONDecoder().decode(CallRecord.self, from: Data($0.utf8))
        }
        return MessageRecord(
            id: MessageID(rawValue: try row.decode(column: "id", as: String.self)),
            dialogID: DialogID(rawValue: try row.decode(column: "dialog_id", as: String.self)),
            seq: try row.decode(column: "seq", as: Int64.self),
            senderID: UserID(rawValue: try row.decode(column: "sender_id", as: String.self)),
            clientMessageID: try row.decode(column: "client_message_id", as: String.self),
            kind: MessageKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .text,
            text: try row.decode(column: "text", as: String?.self),
            attachmentID: try row.decode(column: "attachment_id", as: String?.self).map(AttachmentID.init(rawValue:)),
            call: call,
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    public func appendMessage(
        _ message: MessageRecord, announce: (@Sendable (any SQLDatabase, MessageRecord) async throws -> EventDelivery)?
    ) async throws -> (message: MessageRecord, isNew: Bool, delivery: EventDelivery?) {
        try await database.transaction { sql in
            if let existing = try await sql.select().columns(Self.messageColumns).from("messages")
                .where("dialog_id", .equal, message.dialogID.rawValue).where("sender_id", .equal, message.senderID.rawValue)
                .where("client_message_id", .equal, message.clientMessageID).first() {
                return (try Self.decodeMessage(existing), false, nil)
            }
            // The dialog's counter moves on and says the new number, in one statement.
            guard let seq = try await sql.update("dialogs")
                .set("last_message_seq", to: SQLRaw("last_message_seq + 1"))
                .set("updated_at", to: message.createdAt.storageMillis)
                .where("id", .equal, message.dialogID.rawValue)
                .returning("last_message_seq")
                .first(decodingColumn: "last_message_seq", as: Int64.self)
            else { throw ChatErrors.dialogNotFound }
            var stored = message
            stored.seq = seq
            let call = message.call.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
            try await sql.insert(into: "messages").columns(Self.messageColumns)
                .values(SQLBind(stored.id.rawValue), SQLBind(stored.dialogID.rawValue), SQLBind(stored.seq),
                        SQLBind(stored.senderID.rawValue), SQLBind(stored.clientMessageID), SQLBind(stored.kind.rawValue),
                        SQLBind(stored.text), SQLBind(stored.attachmentID?.rawValue), SQLBind(call),
                        SQLBind(stored.createdAt.storageMillis)).run()
            // A new message brings a cleared conversation back; the sender has read their own message.
            try await sql.update("dialog_members")
                .set("hidden", to: 0)
                .set("read_seq", to: SQLQueryString("CASE WHEN user_id = \(bind: stored.senderID.rawValue) THEN \(bind: stored.seq) ELSE read_seq END"))
                .where("dialog_id", .equal, stored.dialogID.rawValue).run()
            return (stored, true, try await announce?(sql, stored))
        }
    }

    public func message(id: MessageID) async throws -> MessageRecord? {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.messageColumns).from("messages").where("id", .equal, id.rawValue)
                .first().map(Self.decodeMessage)
        }
    }

    public func messages(in dialog: DialogID, after: Int64, before: Int64?, limit: Int) async throws -> [MessageRecord] {
        try await database.withConnection { sql in
            var select = sql.select().columns(Self.messageColumns).from("messages")
                .where("dialog_id", .equal, dialog.rawValue).where("seq", .greaterThan, after)
            if let before { select = select.where("seq", .lessThan, before) }
            return try await select.orderBy("seq", .descending).limit(limit).all().map(Self.decodeMessage)
        }
    }

    public func markRead(_ dialog: DialogID, by user: UserID, upTo seq: Int64) async throws -> Bool {
        try await database.transaction { sql in
            let current = try await sql.select().column("read_seq").from("dialog_members")
                .where("dialog_id", .equal, dialog.rawValue).where("user_id", .equal, user.rawValue)
                .first(decodingColumn: "read_seq", as: Int64.self)
            guard let current, seq > current else { return false }
            try await sql.update("dialog_members").set("read_seq", to: seq)
                .where("dialog_id", .equal, dialog.rawValue).where("user_id", .equal, user.rawValue).run()
            return true
        }
    }

    public func unreadCount(_ dialog: DialogID, for membership: Membership) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("""
                SELECT COUNT(*) AS n FROM messages WHERE dialog_id = \(bind: dialog.rawValue)
                AND seq > \(bind: max(membership.readSeq, membership.clearedSeq)) AND sender_id <> \(bind: membership.userID.rawValue)
                """).first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }

    public func unreadDialogCount(of user: UserID) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("""
                SELECT COUNT(*) AS n FROM dialog_members m WHERE m.user_id = \(bind: user.rawValue) AND m.hidden = 0
                AND EXISTS (SELECT 1 FROM messages WHERE messages.dialog_id = m.dialog_id
                            AND messages.seq > MAX(m.read_seq, m.cleared_seq) AND messages.sender_id <> m.user_id)
                """).first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }

    static let attachmentColumns = ["id", "uploader_id", "hash", "kind", "content_type", "size", "duration_ms", "width", "height", "created_at"]

    static func decodeAttachment(_ row: any SQLRow) throws -> AttachmentRecord {
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
        try await database.withConnection { sql in
            try await sql.insert(into: "attachments").columns(Self.attachmentColumns)
                .values(SQLBind(a.id.rawValue), SQLBind(a.uploaderID.rawValue), SQLBind(a.hash), SQLBind(a.kind),
                        SQLBind(a.contentType), SQLBind(a.size), SQLBind(a.durationMs), SQLBind(a.width), SQLBind(a.height),
                        SQLBind(a.createdAt.storageMillis)).run()
        }
    }

    public func attachment(id: AttachmentID) async throws -> AttachmentRecord? {
        try await attachments(ids: [id]).first
    }

    public func attachments(ids: [AttachmentID]) async throws -> [AttachmentRecord] {
        if ids.isEmpty { return [] }
        return try await database.withConnection { sql in
            try await sql.select().columns(Self.attachmentColumns).from("attachments")
                .where("id", .in, ids.map(\.rawValue)).all().map(Self.decodeAttachment)
        }
    }

    public func isReferenced(_ attachment: AttachmentID) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw("""
                SELECT 1 AS yes WHERE EXISTS (SELECT 1 FROM messages WHERE attachment_id = \(bind: attachment.rawValue))
                OR EXISTS (SELECT 1 FROM dialogs WHERE avatar_attachment_id = \(bind: attachment.rawValue))
                """).first() != nil
        }
    }

    public func deleteAttachment(_ attachment: AttachmentID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "attachments").where("id", .equal, attachment.rawValue).run()
        }
    }

    public func attachmentCount(hash: String) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM attachments WHERE hash = \(bind: hash)").first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }

    public func memberSeesAttachment(_ attachment: AttachmentID, user: UserID) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw("""
                SELECT 1 AS yes FROM dialog_members m WHERE m.user_id = \(bind: user.rawValue) AND (
                  EXISTS (SELECT 1 FROM messages x WHERE x.dialog_id = m.dialog_id AND x.attachment_id = \(bind: attachment.rawValue) AND x.seq > m.cleared_seq)
                  OR EXISTS (SELECT 1 FROM dialogs d WHERE d.id = m.dialog_id AND d.avatar_attachment_id = \(bind: attachment.rawValue)))
                LIMIT 1
                """).first() != nil
        }
    }
}

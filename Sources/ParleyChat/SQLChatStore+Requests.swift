import Foundation
import ParleyCore
import ParleyStorage

extension SQLChatStore {
    static let requestColumns = "dialog_id, from_user, to_user, status, first_seq, created_at"

    /// `prefix`: the columns' names in a join that renamed them (`request_` + the name).
    static func decodeRequest(_ row: Row, prefix: String = "") throws -> MessageRequestRecord {
        MessageRequestRecord(
            dialogID: DialogID(rawValue: try row.decode(column: prefix + "dialog_id", as: String.self)),
            from: UserID(rawValue: try row.decode(column: prefix + "from_user", as: String.self)),
            to: UserID(rawValue: try row.decode(column: prefix + "to_user", as: String.self)),
            status: MessageRequestRecord.Status(rawValue: try row.decode(column: prefix + "status", as: String.self)) ?? .pending,
            firstSeq: try row.decode(column: prefix + "first_seq", as: Int64.self),
            createdAt: Date(storageMillis: try row.decode(column: prefix + "created_at", as: Int64.self)))
    }

    /// Records a request unless the dialog has one; whether it did.
    static func insertRequest(_ request: MessageRequestRecord, firstSeq: Int64, _ sql: Transaction) throws -> Bool {
        try sql.execute("""
            INSERT INTO message_requests (\(requestColumns)) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dialog_id) DO NOTHING
            """, request.dialogID.rawValue, request.from.rawValue, request.to.rawValue, request.status.rawValue, firstSeq,
            request.createdAt.storageMillis) == 1
    }

    public func messageRequest(dialog: DialogID) async throws -> MessageRequestRecord? {
        try await database.read { sql in
            try sql.first("SELECT \(Self.requestColumns) FROM message_requests WHERE dialog_id = ?", dialog.rawValue)
                .map { try Self.decodeRequest($0) }
        }
    }

    public func pendingRequests(to user: UserID) async throws -> [MessageRequestRecord] {
        try await database.read { sql in
            try sql.query("""
                SELECT \(Self.requestColumns) FROM message_requests WHERE to_user = ? AND status = 'pending'
                ORDER BY created_at DESC, dialog_id DESC
                """, user.rawValue).map { try Self.decodeRequest($0) }
        }
    }

    public func acceptRequest(dialog: DialogID) async throws -> Bool {
        try await database.write { sql in
            try sql.execute("UPDATE message_requests SET status = 'accepted' WHERE dialog_id = ? AND status = 'pending'",
                            dialog.rawValue) == 1
        }
    }

    public func declineRequest(dialog: DialogID) async throws -> Bool? {
        try await database.write { sql in
            guard let firstSeq = try sql.scalar("""
                SELECT first_seq FROM message_requests WHERE dialog_id = ? AND status = 'pending'
                """, dialog.rawValue, as: Int64.self) else { return nil }
            try sql.execute("DELETE FROM message_requests WHERE dialog_id = ?", dialog.rawValue)
            try sql.execute("DELETE FROM messages WHERE dialog_id = ? AND seq >= ?", dialog.rawValue, firstSeq)
            // An older history of the pair (they were friends once) stays; otherwise the dialog goes.
            if try sql.first("SELECT 1 FROM messages WHERE dialog_id = ? LIMIT 1", dialog.rawValue) == nil {
                try sql.execute("DELETE FROM dialogs WHERE id = ?", dialog.rawValue)
                return true
            }
            return false
        }
    }
}

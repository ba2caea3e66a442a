import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage
import SQLKit

/// `ChatStore` over SQLKit: dialogs and members.
public struct SQLChatStore: ChatStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static let dialogColumns = ["id", "type", "name", "avatar_attachment_id", "created_by", "created_at", "updated_at", "last_message_seq"]

    static func decodeDialog(_ row: any SQLRow) throws -> DialogRecord {
        DialogRecord(
            id: DialogID(rawValue: try row.decode(column: "id", as: String.self)),
            type: DialogType(rawValue: try row.decode(column: "type", as: String.self)) ?? .group,
            name: try row.decode(column: "name", as: String?.self),
            avatarAttachmentID: try row.decode(column: "avatar_attachment_id", as: String?.self).map(AttachmentID.init(rawValue:)),
            createdBy: UserID(rawValue: try row.decode(column: "created_by", as: String.self)),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(storageMillis: try row.decode(column: "updated_at", as: Int64.self)),
            lastMessageSeq: try row.decode(column: "last_message_seq", as: Int64.self))
    }

    static let memberColumns = ["dialog_id", "user_id", "joined_at", "read_seq", "cleared_seq", "hidden"]

    static func decodeMember(_ row: any SQLRow) throws -> Membership {
        Membership(
            dialogID: DialogID(rawValue: try row.decode(column: "dialog_id", as: String.self)),
            userID: UserID(rawValue: try row.decode(column: "user_id", as: String.self)),
            joinedAt: Date(storageMillis: try row.decode(column: "joined_at", as: Int64.self)),
            readSeq: try row.decode(column: "read_seq", as: Int64.self),
            clearedSeq: try row.decode(column: "cleared_seq", as: Int64.self),
            hidden: try row.decode(column: "hidden", as: Int.self) != 0)
    }

    public func dialog(id: DialogID) async throws -> DialogRecord? {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.dialogColumns).from("dialogs").where("id", .equal, id.rawValue)
                .first().map(Self.decodeDialog)
        }
    }

    public func privateDialog(pairKey: String) async throws -> DialogRecord? {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.dialogColumns).from("dialogs").where("pair_key", .equal, pairKey)
                .first().map(Self.decodeDialog)
        }
    }

    public func createDialog(_ dialog: DialogRecord, pairKey: String?, members: [UserID]) async throws {
        try await database.transaction { sql in
            try await sql.insert(into: "dialogs").columns("pair_key", Self.dialogColumns[0], Self.dialogColumns[1],
                Self.dialogColumns[2], Self.dialogColumns[3], Self.dialogColumns[4], Self.dialogColumns[5],
                Self.dialogColumns[6], Self.dialogColumns[7])
                .values(SQLBind(pairKey), SQLBind(dialog.id.rawValue), SQLBind(dialog.type.rawValue), SQLBind(dialog.name),
                        SQLBind(dialog.avatarAttachmentID?.rawValue), SQLBind(dialog.createdBy.rawValue),
                        SQLBind(dialog.createdAt.storageMillis), SQLBind(dialog.updatedAt.storageMillis), SQLBind(dialog.lastMessageSeq))
                .run()
            try await Self.insertMembers(members, dialog.id, dialog.createdAt, sql)
        }
    }

    static func insertMembers(_ users: [UserID], _ dialog: DialogID, _ at: Date, _ sql: any SQLDatabase) async throws {
        for user in users {
            let exists = try await sql.select().column("user_id").from("dialog_members")
                .where("dialog_id", .equal, dialog.rawValue).where("user_id", .equal, user.rawValue).first()
            if exists != nil { continue }
            let last = try await sql.select().column("last_message_seq").from("dialogs").where("id", .equal, dialog.rawValue)
                .first(decodingColumn: "last_message_seq", as: Int64.self) ?? 0
            // A newcomer starts with the history so far read.
            try await sql.insert(into: "dialog_members").columns(memberColumns)
                .values(SQLBind(dialog.rawValue), SQLBind(user.rawValue), SQLBind(at.storageMillis), SQLBind(last),
                        SQLBind(Int64(0)), SQLBind(0)).run()
        }
    }

    public func updateDialog(id: DialogID, name: String?, avatar: AttachmentID?, at: Date) async throws {
        try await database.withConnection { sql in
            var update = sql.update("dialogs").set("updated_at", to: at.storageMillis)
            if let name { update = update.set("name", to: name) }
            if let avatar { update = update.set("avatar_attachment_id", to: avatar.rawValue) }
            try await update.where("id", .equal, id.rawValue).run()
        }
    }

    public func addMembers(_ users: [UserID], to dialog: DialogID, at: Date) async throws {
        try await database.transaction { sql in
            try await Self.insertMembers(users, dialog, at, sql)
            try await sql.update("dialogs").set("updated_at", to: at.storageMillis).where("id", .equal, dialog.rawValue).run()
        }
    }

    public func removeMember(_ user: UserID, from dialog: DialogID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "dialog_members").where("dialog_id", .equal, dialog.rawValue)
                .where("user_id", .equal, user.rawValue).run()
        }
    }

    public func membership(_ user: UserID, in dialog: DialogID) async throws -> Membership? {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.memberColumns).from("dialog_members")
                .where("dialog_id", .equal, dialog.rawValue).where("user_id", .equal, user.rawValue)
                .first().map(Self.decodeMember)
        }
    }

    public func members(of dialog: DialogID) async throws -> [Membership] {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.memberColumns).from("dialog_members")
                .where("dialog_id", .equal, dialog.rawValue).orderBy("joined_at").all().map(Self.decodeMember)
        }
    }

    public func clear(_ dialog: DialogID, for user: UserID) async throws {
        try await database.transaction { sql in
            let last = try await sql.select().column("last_message_seq").from("dialogs").where("id", .equal, dialog.rawValue)
                .first(decodingColumn: "last_message_seq", as: Int64.self) ?? 0
            try await sql.update("dialog_members").set("cleared_seq", to: last).set("read_seq", to: last).set("hidden", to: 1)
                .where("dialog_id", .equal, dialog.rawValue).where("user_id", .equal, user.rawValue).run()
        }
    }

    public func unhide(_ dialog: DialogID, for user: UserID) async throws {
        try await database.withConnection { sql in
            try await sql.update("dialog_members").set("hidden", to: 0)
                .where("dialog_id", .equal, dialog.rawValue).where("user_id", .equal, user.rawValue).run()
        }
    }

    public func dialogs(of user: UserID, after cursor: DialogCursor?, limit: Int) async throws -> [(DialogRecord, Membership)] {
        try await database.withConnection { sql in
            var select = sql.select()
            for column in Self.dialogColumns { select = select.column(SQLColumn(column, table: "dialogs")) }
            for column in ["joined_at", "read_seq", "cleared_seq", "hidden", "user_id", "dialog_id"] {
                select = select.column(SQLColumn(column, table: "dialog_members"))
            }
            select = select
                .from("dialogs")
                .join("dialog_members", on: SQLColumn("id", table: "dialogs"), .equal, SQLColumn("dialog_id", table: "dialog_members"))
                .where(SQLColumn("user_id", table: "dialog_members"), .equal, SQLBind(user.rawValue))
                .where(SQLColumn("hidden", table: "dialog_members"), .equal, SQLBind(0))
            if let cursor {
                select = select.where {
                    $0.where(SQLColumn("updated_at", table: "dialogs"), .lessThan, SQLBind(cursor.updatedAt))
                        .orWhere {
                            $0.where(SQLColumn("updated_at", table: "dialogs"), .equal, SQLBind(cursor.updatedAt))
                                .where(SQLColumn("id", table: "dialogs"), .lessThan, SQLBind(cursor.id.rawValue))
                        }
                }
            }
            return try await select
                .orderBy(SQLOrderBy(expression: SQLColumn("updated_at", table: "dialogs"), direction: SQLDirection.descending))
                .orderBy(SQLOrderBy(expression: SQLColumn("id", table: "dialogs"), direction: SQLDirection.descending))
                .limit(limit).all().map { (try Self.decodeDialog($0), try Self.decodeMember($0)) }
        }
    }
}

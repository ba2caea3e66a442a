import CoreMetrics
import Foundation
import Logging
import ParleyCore
import ParleyFriends
import ParleyProtocol
import ParleyStorage

/// `ChatStore` in SQL: dialogs and members. A new message's events are stored through `events`
/// in the message's own transaction.
public struct SQLChatStore: ChatStore {
    let database: Database
    let events: any TransactionalEvents
    /// On PostgreSQL, the sends decided in one trip gathered into batches (`sendAll`).
    let batcher: SendBatcher?

    /// `metrics` and `logger` tell how the batches go on PostgreSQL (`BatchFigures`).
    public init(database: Database, events: any TransactionalEvents, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
                logger: Logger = Logger(label: "parley.chat")) {
        self.database = database
        self.events = events
        guard database.kind == .postgresql else {
            batcher = nil
            return
        }
        let figures = BatchFigures(metrics: metrics, logger: logger)
        batcher = SendBatcher { sends in await Self.runBatch(sends, database, events, figures) }
    }

    static let dialogColumns = "id, type, name, avatar_attachment_id, created_by, owner_id, created_at, updated_at, last_message_seq"

    static func decodeDialog(_ row: Row) throws -> DialogRecord {
        DialogRecord(
            id: DialogID(rawValue: try row.decode(column: "id", as: String.self)),
            type: DialogType(rawValue: try row.decode(column: "type", as: String.self)) ?? .group,
            name: try row.decode(column: "name", as: String?.self),
            avatarAttachmentID: try row.decode(column: "avatar_attachment_id", as: String?.self).map(AttachmentID.init(rawValue:)),
            createdBy: UserID(rawValue: try row.decode(column: "created_by", as: String.self)),
            ownerID: try row.decode(column: "owner_id", as: String?.self).map(UserID.init(rawValue:)),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(storageMillis: try row.decode(column: "updated_at", as: Int64.self)),
            lastMessageSeq: try row.decode(column: "last_message_seq", as: Int64.self))
    }

    static let memberColumns = "dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden"

    /// `prefix`: the columns' names in a join that renamed them (`member_` + the name).
    static func decodeMember(_ row: Row, prefix: String = "") throws -> Membership {
        Membership(
            dialogID: DialogID(rawValue: try row.decode(column: prefix + "dialog_id", as: String.self)),
            userID: UserID(rawValue: try row.decode(column: prefix + "user_id", as: String.self)),
            joinedAt: Date(storageMillis: try row.decode(column: prefix + "joined_at", as: Int64.self)),
            readSeq: try row.decode(column: prefix + "read_seq", as: Int64.self),
            clearedSeq: try row.decode(column: prefix + "cleared_seq", as: Int64.self),
            hidden: try row.decode(column: prefix + "hidden", as: Int.self) != 0)
    }

    public func dialog(id: DialogID) async throws -> DialogRecord? {
        try await database.read { sql in
            try sql.first("SELECT \(Self.dialogColumns) FROM dialogs WHERE id = ?", id.rawValue).map(Self.decodeDialog)
        }
    }

    public func sendContext(dialog id: DialogID, sender: UserID) async throws -> SendContext? {
        // Read where the pages are warm (on SQLite the writer's connection): every message reads this.
        try await database.readLatest { sql in try Self.sendContext(dialog: id, sender: sender, in: sql) }
    }

    /// The reads of `sendContext`, in a snapshot or beside the write that stores the message: on
    /// PostgreSQL in one statement, on SQLite in steps.
    static func sendContext(dialog id: DialogID, sender: UserID, in sql: some SQLQuerying) throws -> SendContext? {
        sql.kind == .postgresql ? try sendContextInOneStatement(dialog: id, sender: sender, in: sql)
            : try sendContextInSteps(dialog: id, sender: sender, in: sql)
    }

    /// The reads of `sendContext` in steps, for SQLite — the dialog with its request, its members,
    /// the sender's standing — since a statement there costs no round trip, and one statement
    /// would repeat the dialog's columns and ask for each member's standing (the writer's time,
    /// which every send waits for).
    static func sendContextInSteps(dialog id: DialogID, sender: UserID, in sql: some SQLQuerying) throws -> SendContext? {
        let found = try sql.query(each: [
            SQLStatement("""
                SELECT \(Self.qualifiedDialogColumns), \(Self.joinedRequestColumns)
                FROM dialogs d LEFT JOIN message_requests r ON r.dialog_id = d.id WHERE d.id = ?
                """, id.rawValue),
            // In the order of the primary key, sorted here: SQLite would sort a handful of rows
            // in a temporary B-tree, built and dropped for every message.
            SQLStatement("SELECT \(Self.memberColumns) FROM dialog_members WHERE dialog_id = ?", id.rawValue),
        ])
        guard let row = found[0].first else { return nil }
        let dialog = try Self.decodeDialog(row)
        let members = try found[1].map { try Self.decodeMember($0) }.sorted(by: Self.joinedFirst)
        // A dialog without a request has NULLs in the request's columns.
        let hasRequest = try row.decode(column: "request_dialog_id", as: String?.self) != nil
        let request = dialog.type == .private && hasRequest ? try Self.decodeRequest(row, prefix: "request_") : nil
        let other = dialog.type == .private ? members.first(where: { $0.userID != sender })?.userID : nil
        let standing = try SQLFriendStore.standing(of: sender, toward: other, in: sql)
        return SendContext(dialog: dialog, members: members, request: request, standing: standing)
    }

    /// The reads of `sendContext` in one statement, for PostgreSQL (each statement is a round
    /// trip there): the dialog joined to its request (if any) and to each member, each member's
    /// row with the sender's standing toward them (`SQLFriendStore.standingColumns`). A dialog
    /// without members still has its row (the members' columns NULL).
    static func sendContextInOneStatement(dialog id: DialogID, sender: UserID, in sql: some SQLQuerying) throws -> SendContext? {
        let standing = SQLFriendStore.standingColumns(of: sender, member: "m.user_id", toward: "d.type = 'private'")
        let rows = try sql.query("""
            SELECT \(Self.qualifiedDialogColumns), \(Self.joinedRequestColumns), \(Self.joinedMemberColumns), \(standing.sql)
            FROM dialogs d LEFT JOIN message_requests r ON r.dialog_id = d.id LEFT JOIN dialog_members m ON m.dialog_id = d.id
            WHERE d.id = ? ORDER BY m.joined_at, m.user_id
            """, binding: standing.binds + [.text(id.rawValue)])
        return try context(fromRows: rows[...], sender: sender)
    }

    /// A send's context from the rows of `sendContextInOneStatement` (or of one send in
    /// `sendContexts`): nil when there are none (no such dialog).
    static func context(fromRows rows: ArraySlice<Row>, sender: UserID) throws -> SendContext? {
        guard let first = rows.first else { return nil }
        let dialog = try Self.decodeDialog(first)
        // A dialog without a request has NULLs in the request's columns, one without members in theirs.
        let hasRequest = try first.decode(column: "request_dialog_id", as: String?.self) != nil
        let request = dialog.type == .private && hasRequest ? try Self.decodeRequest(first, prefix: "request_") : nil
        var members: [(member: UserID, row: Row)] = []
        var memberships: [Membership] = []
        for row in rows {
            guard try row.decode(column: "member_user_id", as: String?.self) != nil else { continue }
            let membership = try Self.decodeMember(row, prefix: "member_")
            memberships.append(membership)
            members.append((membership.userID, row))
        }
        let other = dialog.type == .private ? memberships.first(where: { $0.userID != sender })?.userID : nil
        let standingOfSender = try SQLFriendStore.standing(of: sender, toward: other, fromRows: members)
        return SendContext(dialog: dialog, members: memberships, request: request, standing: standingOfSender)
    }

    /// The order of `ORDER BY joined_at, user_id`: who joined first, then by user id (unique).
    static func joinedFirst(_ a: Membership, _ b: Membership) -> Bool {
        a.joinedAt != b.joinedAt ? a.joinedAt < b.joinedAt : a.userID.rawValue < b.userID.rawValue
    }

    /// `dialogColumns` of a `dialogs d` joined to a table that shares some of their names.
    static let qualifiedDialogColumns = dialogColumns.split(separator: ", ").map { "d.\($0) AS \($0)" }.joined(separator: ", ")
    /// `requestColumns` of the `message_requests r` joined to it, each named `request_` + its name.
    static let joinedRequestColumns = requestColumns.split(separator: ", ").map { "r.\($0) AS request_\($0)" }.joined(separator: ", ")
    /// `memberColumns` of the `dialog_members m` joined to it, each named `member_` + its name.
    static let joinedMemberColumns = memberColumns.split(separator: ", ").map { "m.\($0) AS member_\($0)" }.joined(separator: ", ")

    public func privateDialog(pairKey: String) async throws -> DialogRecord? {
        try await database.read { sql in
            try sql.first("SELECT \(Self.dialogColumns) FROM dialogs WHERE pair_key = ?", pairKey).map(Self.decodeDialog)
        }
    }

    public func createDialog(_ dialog: DialogRecord, pairKey: String?, members: [UserID]) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO dialogs (pair_key, \(Self.dialogColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, pairKey, dialog.id.rawValue, dialog.type.rawValue, dialog.name, dialog.avatarAttachmentID?.rawValue,
                dialog.createdBy.rawValue, dialog.ownerID?.rawValue, dialog.createdAt.storageMillis, dialog.updatedAt.storageMillis, dialog.lastMessageSeq)
            try Self.insertMembers(members, dialog.id, dialog.createdAt, sql)
        }
    }

    static func insertMembers(_ users: [UserID], _ dialog: DialogID, _ at: Date, _ sql: Transaction) throws {
        for user in users {
            // A newcomer starts with the history so far read; one already in stays as they are.
            try sql.execute("""
                INSERT INTO dialog_members (\(memberColumns))
                SELECT ?, ?, ?, last_message_seq, 0, 0 FROM dialogs WHERE id = ?
                ON CONFLICT (dialog_id, user_id) DO NOTHING
                """, dialog.rawValue, user.rawValue, at.storageMillis, dialog.rawValue)
        }
    }

    public func updateDialog(id: DialogID, name: String?, avatar: AttachmentID?, at: Date) async throws {
        try await database.write { sql in
            // NULL keeps the column as it is.
            try sql.execute("""
                UPDATE dialogs SET updated_at = ?, name = COALESCE(?, name), avatar_attachment_id = COALESCE(?, avatar_attachment_id)
                WHERE id = ?
                """, at.storageMillis, name, avatar?.rawValue, id.rawValue)
        }
    }

    public func addMembers(_ users: [UserID], to dialog: DialogID, at: Date) async throws {
        try await database.write { sql in
            try Self.insertMembers(users, dialog, at, sql)
            try sql.execute("UPDATE dialogs SET updated_at = ? WHERE id = ?", at.storageMillis, dialog.rawValue)
        }
    }

    public func removeMember(_ user: UserID, from dialog: DialogID) async throws -> MemberRemoval {
        try await database.write { sql in
            guard try sql.execute("DELETE FROM dialog_members WHERE dialog_id = ? AND user_id = ?", dialog.rawValue, user.rawValue) > 0
            else { return .notAMember }
            // The one who has been in it longest takes over from an owner who leaves; nobody left, no group.
            let heir = try sql.scalar("""
                SELECT user_id FROM dialog_members WHERE dialog_id = ? ORDER BY joined_at, user_id LIMIT 1
                """, dialog.rawValue, as: String.self)
            guard let heir else {
                try sql.execute("DELETE FROM dialogs WHERE id = ? AND type = 'group'", dialog.rawValue)
                return .emptied
            }
            let passed = try sql.execute("UPDATE dialogs SET owner_id = ? WHERE id = ? AND owner_id = ?",
                                         heir, dialog.rawValue, user.rawValue)
            return passed > 0 ? .ownershipPassed(to: UserID(rawValue: heir)) : .removed
        }
    }

    public func deleteDialog(_ dialog: DialogID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM dialogs WHERE id = ?", dialog.rawValue)
        }
    }

    public func membership(_ user: UserID, in dialog: DialogID) async throws -> Membership? {
        try await database.read { sql in
            try sql.first("SELECT \(Self.memberColumns) FROM dialog_members WHERE dialog_id = ? AND user_id = ?",
                          dialog.rawValue, user.rawValue).map { try Self.decodeMember($0) }
        }
    }

    public func members(of dialog: DialogID) async throws -> [Membership] {
        try await database.read { sql in
            try sql.query("SELECT \(Self.memberColumns) FROM dialog_members WHERE dialog_id = ? ORDER BY joined_at", dialog.rawValue)
                .map { try Self.decodeMember($0) }
        }
    }

    public func clear(_ dialog: DialogID, for user: UserID) async throws {
        try await database.write { sql in
            let last = try sql.scalar("SELECT last_message_seq FROM dialogs WHERE id = ?", dialog.rawValue, as: Int64.self) ?? 0
            try sql.execute("""
                UPDATE dialog_members SET cleared_seq = ?, read_seq = ?, hidden = 1 WHERE dialog_id = ? AND user_id = ?
                """, last, last, dialog.rawValue, user.rawValue)
        }
    }

    public func unhide(_ dialog: DialogID, for user: UserID) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE dialog_members SET hidden = 0 WHERE dialog_id = ? AND user_id = ?", dialog.rawValue, user.rawValue)
        }
    }

    public func chatPartners(of user: UserID) async throws -> Set<UserID> {
        let rows = try await database.read { sql in
            try sql.query("""
                SELECT DISTINCT other.user_id FROM dialog_members mine JOIN dialog_members other ON other.dialog_id = mine.dialog_id
                WHERE mine.user_id = ? AND other.user_id <> mine.user_id
                """, user.rawValue)
        }
        return Set(try rows.map { UserID(rawValue: try $0.first(as: String.self)) })
    }

    /// A dialog that waits as a message request to member `m` is in their requests, not their list.
    static let notAWaitingRequest = """
        NOT EXISTS (SELECT 1 FROM message_requests r WHERE r.dialog_id = m.dialog_id AND r.to_user = m.user_id AND r.status = 'pending')
        """

    public func dialogs(of user: UserID, after cursor: DialogCursor?, limit: Int) async throws -> [(DialogRecord, Membership)] {
        let select = """
            SELECT dialogs.id, dialogs.type, dialogs.name, dialogs.avatar_attachment_id, dialogs.created_by, dialogs.owner_id, dialogs.created_at,
              dialogs.updated_at, dialogs.last_message_seq, m.joined_at, m.read_seq, m.cleared_seq, m.hidden, m.user_id, m.dialog_id
            FROM dialogs JOIN dialog_members m ON dialogs.id = m.dialog_id
            WHERE m.user_id = ? AND m.hidden = 0 AND \(Self.notAWaitingRequest)
            """
        let order = "ORDER BY dialogs.updated_at DESC, dialogs.id DESC LIMIT ?"
        let rows = try await database.read { sql in
            if let cursor {
                try sql.query("""
                    \(select) AND (dialogs.updated_at < ? OR (dialogs.updated_at = ? AND dialogs.id < ?)) \(order)
                    """, user.rawValue, cursor.updatedAt, cursor.updatedAt, cursor.id.rawValue, limit)
            } else {
                try sql.query("\(select) \(order)", user.rawValue, limit)
            }
        }
        return try rows.map { (try Self.decodeDialog($0), try Self.decodeMember($0)) }
    }
}

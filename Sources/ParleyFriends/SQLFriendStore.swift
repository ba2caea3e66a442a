import Foundation
import ParleyCore
import ParleyStorage

/// `FriendStore` in SQL (the same statements on SQLite and PostgreSQL).
public struct SQLFriendStore: FriendStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static func pair(_ a: UserID, _ b: UserID) -> (low: String, high: String) {
        a.rawValue < b.rawValue ? (a.rawValue, b.rawValue) : (b.rawValue, a.rawValue)
    }

    static func decodeRequest(_ row: Row) throws -> FriendRequest {
        FriendRequest(
            id: FriendRequestID(rawValue: try row.decode(column: "id", as: String.self)),
            from: UserID(rawValue: try row.decode(column: "from_user", as: String.self)),
            to: UserID(rawValue: try row.decode(column: "to_user", as: String.self)),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    static let requestColumns = "SELECT id, from_user, to_user, created_at FROM friend_requests"

    public func userExists(_ id: UserID) async throws -> Bool {
        try await database.read { sql in
            try sql.first("SELECT id FROM users WHERE id = ? AND email_verified_at IS NOT NULL", id.rawValue) != nil
        }
    }

    public func request(id: FriendRequestID) async throws -> FriendRequest? {
        try await database.read { sql in
            try sql.first("\(Self.requestColumns) WHERE id = ?", id.rawValue).map(Self.decodeRequest)
        }
    }

    public func request(from: UserID, to: UserID) async throws -> FriendRequest? {
        try await database.read { sql in
            try sql.first("\(Self.requestColumns) WHERE from_user = ? AND to_user = ?", from.rawValue, to.rawValue)
                .map(Self.decodeRequest)
        }
    }

    public func requests(of user: UserID, direction: RequestDirection) async throws -> [FriendRequest] {
        let column = direction == .incoming ? "to_user" : "from_user"
        return try await database.read { sql in
            try sql.query("\(Self.requestColumns) WHERE \(column) = ? ORDER BY created_at DESC", user.rawValue)
                .map(Self.decodeRequest)
        }
    }

    public func placeRequest(_ request: FriendRequest) async throws -> PlacedRequest {
        let (low, high) = Self.pair(request.from, request.to)
        let from = request.from.rawValue, to = request.to.rawValue
        return try await database.write { sql in
            let blocked = try sql.first("""
                SELECT blocker FROM blocks WHERE (blocker = ? AND blocked = ?) OR (blocker = ? AND blocked = ?)
                """, from, to, to, from)
            if blocked != nil { return .blocked }
            if try Self.areFriends(low, high, sql) { return .alreadyFriends }
            let pending = try sql.query("""
                SELECT from_user FROM friend_requests WHERE (from_user = ? AND to_user = ?) OR (from_user = ? AND to_user = ?)
                """, from, to, to, from).map { try $0.decode(column: "from_user", as: String.self) }
            if pending.contains(from) { return .alreadyRequested }
            if pending.contains(to) {
                try Self.deleteRequests(between: request.from, request.to, sql)
                try sql.execute("INSERT INTO friendships (user_low, user_high, created_at) VALUES (?, ?, ?)",
                                low, high, request.createdAt.storageMillis)
                return .befriended(Friendship(friend: request.to, since: request.createdAt))
            }
            try sql.execute("INSERT INTO friend_requests (id, from_user, to_user, created_at) VALUES (?, ?, ?, ?)",
                            request.id.rawValue, from, to, request.createdAt.storageMillis)
            return .inserted(request)
        }
    }

    public func deleteRequest(id: FriendRequestID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM friend_requests WHERE id = ?", id.rawValue)
        }
    }

    public func befriend(_ a: UserID, _ b: UserID, at: Date) async throws -> Friendship {
        let (low, high) = Self.pair(a, b)
        try await database.write { sql in
            try Self.deleteRequests(between: a, b, sql)
            if try !Self.areFriends(low, high, sql) {
                try sql.execute("INSERT INTO friendships (user_low, user_high, created_at) VALUES (?, ?, ?)", low, high, at.storageMillis)
            }
        }
        return try await friendship(a, b) ?? Friendship(friend: b, since: at)
    }

    public func friendship(_ a: UserID, _ b: UserID) async throws -> Friendship? {
        let (low, high) = Self.pair(a, b)
        return try await database.read { sql in
            try sql.scalar("SELECT created_at FROM friendships WHERE user_low = ? AND user_high = ?", low, high, as: Int64.self)
                .map { Friendship(friend: b, since: Date(storageMillis: $0)) }
        }
    }

    public func friends(of user: UserID) async throws -> [Friendship] {
        try await database.read { sql in
            try sql.query("""
                SELECT user_high AS friend, created_at FROM friendships WHERE user_low = ?
                UNION ALL
                SELECT user_low AS friend, created_at FROM friendships WHERE user_high = ?
                """, user.rawValue, user.rawValue).map { row in
                Friendship(friend: UserID(rawValue: try row.decode(column: "friend", as: String.self)),
                           since: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
            }
        }
    }

    public func unfriend(_ a: UserID, _ b: UserID) async throws -> Bool {
        let (low, high) = Self.pair(a, b)
        return try await database.write { sql in
            try sql.execute("DELETE FROM friendships WHERE user_low = ? AND user_high = ?", low, high) > 0
        }
    }

    public func block(blocker: UserID, blocked: UserID, at: Date) async throws -> Bool {
        let (low, high) = Self.pair(blocker, blocked)
        return try await database.write { sql in
            try Self.deleteRequests(between: blocker, blocked, sql)
            let wereFriends = try sql.execute("DELETE FROM friendships WHERE user_low = ? AND user_high = ?", low, high) > 0
            try sql.execute("""
                INSERT INTO blocks (blocker, blocked, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
                """, blocker.rawValue, blocked.rawValue, at.storageMillis)
            return wereFriends
        }
    }

    public func unblock(blocker: UserID, blocked: UserID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM blocks WHERE blocker = ? AND blocked = ?", blocker.rawValue, blocked.rawValue)
        }
    }

    public func isBlocked(blocker: UserID, blocked: UserID) async throws -> Bool {
        try await database.read { sql in
            try sql.first("SELECT blocker FROM blocks WHERE blocker = ? AND blocked = ?", blocker.rawValue, blocked.rawValue) != nil
        }
    }

    public func blocks(by blocker: UserID) async throws -> [Block] {
        try await database.read { sql in
            try sql.query("SELECT blocked, created_at FROM blocks WHERE blocker = ? ORDER BY created_at DESC", blocker.rawValue)
                .map { row in
                    Block(blocked: UserID(rawValue: try row.decode(column: "blocked", as: String.self)),
                          since: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
                }
        }
    }

    public func blockers(of user: UserID) async throws -> Set<UserID> {
        try await database.read { sql in
            Set(try sql.query("SELECT blocker FROM blocks WHERE blocked = ?", user.rawValue)
                .map { UserID(rawValue: try $0.decode(column: "blocker", as: String.self)) })
        }
    }

    /// What sending a message needs of these tables, as columns of a query with a row per member
    /// of the dialog (`member` names that row's user id): whether the member blocks `sender`, and
    /// where `toward` holds (a condition without values: the dialog is private) whether `sender`
    /// blocks the member and whether they are friends (never, for the sender's own row). Read
    /// with the message's other reads (`SQLChatStore.sendContext`), one statement for all of it;
    /// `standing(of:toward:fromRows:)` reads the answer. The values go before the query's own
    /// (the columns come first in it).
    public static func standingColumns(of sender: UserID, member: String, toward: String) -> (sql: String, binds: [SQLValue]) {
        let me = SQLValue.text(sender.rawValue)
        return (standingColumns(ofSender: "?", member: member, toward: toward), [me, me, me, me])
    }

    /// The same columns with the sender named by `sender`, a column of the query (or `?`, bound
    /// four times): for a query that reads the standing of several senders at once.
    public static func standingColumns(ofSender sender: String, member: String, toward: String) -> String {
        """
        EXISTS (SELECT 1 FROM blocks WHERE blocker = \(member) AND blocked = \(sender)) AS standing_blocks_sender,
        CASE WHEN \(toward) THEN EXISTS (SELECT 1 FROM blocks WHERE blocker = \(sender) AND blocked = \(member)) ELSE 1 = 0 END
            AS standing_blocked_by_sender,
        CASE WHEN \(toward) THEN EXISTS (SELECT 1 FROM friendships WHERE (user_low = \(sender) AND user_high = \(member))
                                                                     OR (user_low = \(member) AND user_high = \(sender))) ELSE 1 = 0 END
            AS standing_friends
        """
    }

    /// What sending a message needs of these tables: who blocked `sender`, and how `sender` stands
    /// to `other` (the other member of a private dialog) when there is one — in two statements,
    /// for SQLite (`SQLChatStore.sendContext`; on PostgreSQL `standingColumns` in one).
    public static func standing(of sender: UserID, toward other: UserID?, in sql: some SQLQuerying) throws -> SenderStanding {
        // Who blocks the sender, and toward `other`: a block the other way and a friendship (one
        // statement) — read together (one wait on PostgreSQL).
        var statements = [SQLStatement("SELECT blocker FROM blocks WHERE blocked = ?", sender.rawValue)]
        if let other, other != sender {
            let pair = Self.pair(sender, other)
            statements.append(SQLStatement("""
                SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker = ? AND blocked = ?) AS blocks_other,
                       EXISTS (SELECT 1 FROM friendships WHERE user_low = ? AND user_high = ?) AS friends
                """, sender.rawValue, other.rawValue, pair.low, pair.high))
        }
        let found = try sql.query(each: statements)
        let blockers = Set(try found[0].map { UserID(rawValue: try $0.decode(column: "blocker", as: String.self)) })
        guard let other else { return SenderStanding(blockers: blockers, reach: nil) }
        if other == sender { return SenderStanding(blockers: blockers, reach: .friends) }
        guard let toward = found[1].first else { throw StorageError.unexpectedNull }   // a SELECT of two EXISTS has its row
        return standing(blockers: blockers, toward: other, blockedBySender: try toward.decode(column: "blocks_other", as: Int64.self) != 0,
                        friends: try toward.decode(column: "friends", as: Int64.self) != 0)
    }

    /// The standing `standingColumns` read: `rows` each member's row of that query, `other` the
    /// other member of a private dialog (nil for a group). Only members can be told of a message,
    /// so only members are among the blockers.
    public static func standing(of sender: UserID, toward other: UserID?, fromRows rows: [(member: UserID, row: Row)]) throws -> SenderStanding {
        var blockers: Set<UserID> = []
        var blockedBySender = false, friends = false
        for (member, row) in rows {
            if try row.decode(column: "standing_blocks_sender", as: Int64.self) != 0 { blockers.insert(member) }
            guard member == other else { continue }
            blockedBySender = try row.decode(column: "standing_blocked_by_sender", as: Int64.self) != 0
            friends = try row.decode(column: "standing_friends", as: Int64.self) != 0
        }
        guard let other else { return SenderStanding(blockers: blockers, reach: nil) }
        if other == sender { return SenderStanding(blockers: blockers, reach: .friends) }
        return standing(blockers: blockers, toward: other, blockedBySender: blockedBySender, friends: friends)
    }

    /// The reach to `other` (not the sender): blocked either way, else friends or not.
    private static func standing(blockers: Set<UserID>, toward other: UserID, blockedBySender: Bool, friends: Bool) -> SenderStanding {
        if blockers.contains(other) || blockedBySender { return SenderStanding(blockers: blockers, reach: .blocked) }
        return SenderStanding(blockers: blockers, reach: friends ? .friends : .notFriends)
    }

    public func relationships(of viewer: UserID, to others: [UserID]) async throws -> [UserID: Relationship] {
        if others.isEmpty { return [:] }
        let values = others.map(\.rawValue.sqlValue), me = SQLValue.text(viewer.rawValue)
        let list = sqlPlaceholders(others.count)
        return try await database.read { sql in
            var result: [UserID: Relationship] = [:]
            func users(_ query: String, _ binds: [SQLValue]) throws -> [UserID] {
                try sql.query(query, binding: binds).map { UserID(rawValue: try $0.first(as: String.self)) }
            }
            for id in try users("""
                SELECT CASE WHEN user_low = ? THEN user_high ELSE user_low END AS other FROM friendships
                WHERE (user_low = ? AND user_high IN (\(list))) OR (user_high = ? AND user_low IN (\(list)))
                """, [me, me] + values + [me] + values) { result[id] = .friend }
            for id in try users("SELECT to_user FROM friend_requests WHERE from_user = ? AND to_user IN (\(list))", [me] + values) {
                result[id] = .requestSent
            }
            for id in try users("SELECT from_user FROM friend_requests WHERE to_user = ? AND from_user IN (\(list))", [me] + values) {
                result[id] = .requestReceived
            }
            // Only one's own blocks show: being blocked is not revealed.
            for id in try users("SELECT blocked FROM blocks WHERE blocker = ? AND blocked IN (\(list))", [me] + values) {
                result[id] = .blocked
            }
            return result
        }
    }

    static func areFriends(_ low: String, _ high: String, _ sql: Transaction) throws -> Bool {
        try sql.first("SELECT user_low FROM friendships WHERE user_low = ? AND user_high = ?", low, high) != nil
    }

    static func deleteRequests(between a: UserID, _ b: UserID, _ sql: Transaction) throws {
        try sql.execute("""
            DELETE FROM friend_requests WHERE (from_user = ? AND to_user = ?) OR (from_user = ? AND to_user = ?)
            """, a.rawValue, b.rawValue, b.rawValue, a.rawValue)
    }
}

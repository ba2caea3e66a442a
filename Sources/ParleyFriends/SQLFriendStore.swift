import Foundation
import ParleyCore
import ParleyStorage
import SQLKit

/// `FriendStore` over SQLKit (SQLite or PostgreSQL).
public struct SQLFriendStore: FriendStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static func pair(_ a: UserID, _ b: UserID) -> (low: String, high: String) {
        a.rawValue < b.rawValue ? (a.rawValue, b.rawValue) : (b.rawValue, a.rawValue)
    }

    static func decodeRequest(_ row: any SQLRow) throws -> FriendRequest {
        FriendRequest(
            id: FriendRequestID(rawValue: try row.decode(column: "id", as: String.self)),
            from: UserID(rawValue: try row.decode(column: "from_user", as: String.self)),
            to: UserID(rawValue: try row.decode(column: "to_user", as: String.self)),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    public func userExists(_ id: UserID) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.select().column("id").from("users").where("id", .equal, id.rawValue)
                .where("email_verified_at", .isNot, SQLLiteral.null).first() != nil
        }
    }

    public func request(id: FriendRequestID) async throws -> FriendRequest? {
        try await database.withConnection { sql in
            try await sql.select().columns("id", "from_user", "to_user", "created_at").from("friend_requests")
                .where("id", .equal, id.rawValue).first().map(Self.decodeRequest)
        }
    }

    public func request(from: UserID, to: UserID) async throws -> FriendRequest? {
        try await database.withConnection { sql in
            try await sql.select().columns("id", "from_user", "to_user", "created_at").from("friend_requests")
                .where("from_user", .equal, from.rawValue).where("to_user", .equal, to.rawValue).first().map(Self.decodeRequest)
        }
    }

    public func requests(of user: UserID, direction: RequestDirection) async throws -> [FriendRequest] {
        try await database.withConnection { sql in
            try await sql.select().columns("id", "from_user", "to_user", "created_at").from("friend_requests")
                .where(direction == .incoming ? "to_user" : "from_user", .equal, user.rawValue)
                .orderBy("created_at", .descending).all().map(Self.decodeRequest)
        }
    }

    public func placeRequest(_ request: FriendRequest) async throws -> PlacedRequest {
        let (low, high) = Self.pair(request.from, request.to)
        let from = request.from.rawValue, to = request.to.rawValue
        return try await database.transaction { sql in
            let blocked = try await sql.select().column("blocker").from("blocks").where {
                $0.where { $0.where("blocker", .equal, from).where("blocked", .equal, to) }
                    .orWhere { $0.where("blocker", .equal, to).where("blocked", .equal, from) }
            }.first()
            if blocked != nil { return .blocked }
            let friends = try await sql.select().column("user_low").from("friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high).first()
            if friends != nil { return .alreadyFriends }
            let pending = try await sql.select().columns("from_user").from("friend_requests").where {
                $0.where { $0.where("from_user", .equal, from).where("to_user", .equal, to) }
                    .orWhere { $0.where("from_user", .equal, to).where("to_user", .equal, from) }
            }.all(decodingColumn: "from_user", as: String.self)
            if pending.contains(from) { return .alreadyRequested }
            if pending.contains(to) {
                try await Self.deleteRequests(between: request.from, request.to, sql)
                try await sql.insert(into: "friendships").columns("user_low", "user_high", "created_at")
                    .values(SQLBind(low), SQLBind(high), SQLBind(request.createdAt.storageMillis)).run()
                return .befriended(Friendship(friend: request.to, since: request.createdAt))
            }
            try await sql.insert(into: "friend_requests").columns("id", "from_user", "to_user", "created_at")
                .values(SQLBind(request.id.rawValue), SQLBind(from), SQLBind(to), SQLBind(request.createdAt.storageMillis)).run()
            return .inserted(request)
        }
    }

    public func deleteRequest(id: FriendRequestID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "friend_requests").where("id", .equal, id.rawValue).run()
        }
    }

    public func befriend(_ a: UserID, _ b: UserID, at: Date) async throws -> Friendship {
        let (low, high) = Self.pair(a, b)
        try await database.transaction { sql in
            try await Self.deleteRequests(between: a, b, sql)
            let existing = try await sql.select().column("user_low").from("friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high).first()
            if existing == nil {
                try await sql.insert(into: "friendships").columns("user_low", "user_high", "created_at")
                    .values(SQLBind(low), SQLBind(high), SQLBind(at.storageMillis)).run()
            }
        }
        return try await friendship(a, b) ?? Friendship(friend: b, since: at)
    }

    public func friendship(_ a: UserID, _ b: UserID) async throws -> Friendship? {
        let (low, high) = Self.pair(a, b)
        return try await database.withConnection { sql in
            try await sql.select().column("created_at").from("friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high)
                .first(decodingColumn: "created_at", as: Int64.self)
                .map { Friendship(friend: b, since: Date(storageMillis: $0)) }
        }
    }

    public func friends(of user: UserID) async throws -> [Friendship] {
        try await database.withConnection { sql in
            try await sql.raw("""
                SELECT user_high AS friend, created_at FROM friendships WHERE user_low = \(bind: user.rawValue)
                UNION ALL
                SELECT user_low AS friend, created_at FROM friendships WHERE user_high = \(bind: user.rawValue)
                """).all().map { row in
                Friendship(friend: UserID(rawValue: try row.decode(column: "friend", as: String.self)),
                           since: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
            }
        }
    }

    public func unfriend(_ a: UserID, _ b: UserID) async throws -> Bool {
        let (low, high) = Self.pair(a, b)
        return try await database.transaction { sql in
            let existing = try await sql.select().column("user_low").from("friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high).first()
            guard existing != nil else { return false }
            try await sql.delete(from: "friendships").where("user_low", .equal, low).where("user_high", .equal, high).run()
            return true
        }
    }

    public func block(blocker: UserID, blocked: UserID, at: Date) async throws -> Bool {
        let (low, high) = Self.pair(blocker, blocked)
        return try await database.transaction { sql in
            try await Self.deleteRequests(between: blocker, blocked, sql)
            let wereFriends = try await sql.select().column("user_low").from("friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high).first() != nil
            try await sql.delete(from: "friendships").where("user_low", .equal, low).where("user_high", .equal, high).run()
            let existing = try await sql.select().column("blocker").from("blocks")
                .where("blocker", .equal, blocker.rawValue).where("blocked", .equal, blocked.rawValue).first()
            if existing == nil {
                try await sql.insert(into: "blocks").columns("blocker", "blocked", "created_at")
                    .values(SQLBind(blocker.rawValue), SQLBind(blocked.rawValue), SQLBind(at.storageMillis)).run()
            }
            return wereFriends
        }
    }

    public func unblock(blocker: UserID, blocked: UserID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "blocks").where("blocker", .equal, blocker.rawValue)
                .where("blocked", .equal, blocked.rawValue).run()
        }
    }

    public func isBlocked(blocker: UserID, blocked: UserID) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.select().column("blocker").from("blocks").where("blocker", .equal, blocker.rawValue)
                .where("blocked", .equal, blocked.rawValue).first() != nil
        }
    }

    public func blocks(by blocker: UserID) async throws -> [Block] {
        try await database.withConnection { sql in
            try await sql.select().columns("blocked", "created_at").from("blocks").where("blocker", .equal, blocker.rawValue)
                .orderBy("created_at", .descending).all().map { row in
                    Block(blocked: UserID(rawValue: try row.decode(column: "blocked", as: String.self)),
                          since: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)))
                }
        }
    }

    public func blockers(of user: UserID) async throws -> Set<UserID> {
        try await database.withConnection { sql in
            Set(try await sql.select().column("blocker").from("blocks").where("blocked", .equal, user.rawValue)
                .all(decodingColumn: "blocker", as: String.self).map(UserID.init(rawValue:)))
        }
    }

    public func relationships(of viewer: UserID, to others: [UserID]) async throws -> [UserID: Relationship] {
        if others.isEmpty { return [:] }
        let ids = others.map(\.rawValue), me = viewer.rawValue
        return try await database.withConnection { sql in
            var result: [UserID: Relationship] = [:]
            let friends = try await sql.raw("""
                SELECT CASE WHEN user_low = \(bind: me) THEN user_high ELSE user_low END AS other FROM friendships
                WHERE (user_low = \(bind: me) AND user_high IN (\(binds: ids))) OR (user_high = \(bind: me) AND user_low IN (\(binds: ids)))
                """).all(decodingColumn: "other", as: String.self)
            for id in friends { result[UserID(rawValue: id)] = .friend }
            let sent = try await sql.select().column("to_user").from("friend_requests").where("from_user", .equal, me)
                .where("to_user", .in, ids).all(decodingColumn: "to_user", as: String.self)
            for id in sent { result[UserID(rawValue: id)] = .requestSent }
            let received = try await sql.select().column("from_user").from("friend_requests").where("to_user", .equal, me)
                .where("from_user", .in, ids).all(decodingColumn: "from_user", as: String.self)
            for id in received { result[UserID(rawValue: id)] = .requestReceived }
            // Only one's own blocks show: being blocked is not revealed.
            let blocked = try await sql.select().column("blocked").from("blocks").where("blocker", .equal, me)
                .where("blocked", .in, ids).all(decodingColumn: "blocked", as: String.self)
            for id in blocked { result[UserID(rawValue: id)] = .blocked }
            return result
        }
    }

    static func deleteRequests(between a: UserID, _ b: UserID, _ sql: any SQLDatabase) async throws {
        try await sql.delete(from: "friend_requests").where {
            $0.where { $0.where("from_user", .equal, a.rawValue).where("to_user", .equal, b.rawValue) }
                .orWhere { $0.where("from_user", .equal, b.rawValue).where("to_user", .equal, a.rawValue) }
        }.run()
    }
}

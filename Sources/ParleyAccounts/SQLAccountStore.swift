import Foundation
import ParleyCore
import ParleyStorage
import SQLKit

/// `AccountStore` over SQLKit: the same statements on SQLite and PostgreSQL.
public struct SQLAccountStore: AccountStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static let userColumns = [
        "id", "email", "name", "status", "password_hash", "date_of_birth", "avatar_hash",
        "email_verified_at", "created_at", "updated_at",
    ]

    static func decodeUser(_ row: any SQLRow) throws -> UserRecord {
        UserRecord(
            id: UserID(rawValue: try row.decode(column: "id", as: String.self)),
            email: try row.decode(column: "email", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            status: try row.decode(column: "status", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            dateOfBirth: try row.decode(column: "date_of_birth", as: String.self),
            avatarHash: try row.decode(column: "avatar_hash", as: String?.self),
            emailVerifiedAt: try row.decode(column: "email_verified_at", as: Int64?.self).map(Date.init(storageMillis:)),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(storageMillis: try row.decode(column: "updated_at", as: Int64.self))
        )
    }

    /// The key users are sorted and searched by: the name folded to lowercase.
    public static func nameKey(_ name: String) -> String { name.lowercased() }

    public func insertUser(_ user: UserRecord) async throws {
        try await database.transaction { sql in
            let existing = try await sql.select().column("id").from("users")
                .where("email", .equal, user.email).first()
            if existing != nil { throw AccountErrors.emailTaken }
            try await sql.insert(into: "users")
                .columns(Self.userColumns + ["name_key"])
                .values(
                    SQLBind(user.id.rawValue), SQLBind(user.email), SQLBind(user.name), SQLBind(user.status),
                    SQLBind(user.passwordHash), SQLBind(user.dateOfBirth), SQLBind(user.avatarHash),
                    SQLBind(user.emailVerifiedAt?.storageMillis), SQLBind(user.createdAt.storageMillis),
                    SQLBind(user.updatedAt.storageMillis), SQLBind(Self.nameKey(user.name))
                )
                .run()
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.userColumns).from("users").where("id", .equal, id.rawValue)
                .first().map(Self.decodeUser)
        }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await database.withConnection { sql in
            try await sql.select().columns(Self.userColumns).from("users").where("email", .equal, email)
                .first().map(Self.decodeUser)
        }
    }

    public func users(ids: [UserID]) async throws -> [UserRecord] {
        if ids.isEmpty { return [] }
        return try await database.withConnection { sql in
            try await sql.select().columns(Self.userColumns).from("users")
                .where("id", .in, ids.map(\.rawValue)).all().map(Self.decodeUser)
        }
    }

    public func updateProfile(id: UserID, name: String?, status: String?, at: Date) async throws {
        try await database.withConnection { sql in
            var update = sql.update("users").set("updated_at", to: at.storageMillis)
            if let name { update = update.set("name", to: name).set("name_key", to: Self.nameKey(name)) }
            if let status { update = update.set("status", to: status) }
            try await update.where("id", .equal, id.rawValue).run()
        }
    }

    public func setAvatar(id: UserID, hash: String, at: Date) async throws {
        try await database.withConnection { sql in
            try await sql.update("users").set("avatar_hash", to: hash).set("updated_at", to: at.storageMillis)
                .where("id", .equal, id.rawValue).run()
        }
    }

    public func setPassword(id: UserID, hash: String, at: Date) async throws {
        try await database.withConnection { sql in
            try await sql.update("users").set("password_hash", to: hash).set("updated_at", to: at.storageMillis)
                .where("id", .equal, id.rawValue).run()
        }
    }

    public func markVerified(id: UserID, at: Date) async throws {
        try await database.withConnection { sql in
            try await sql.update("users").set("email_verified_at", to: at.storageMillis)
                .where("id", .equal, id.rawValue).where("email_verified_at", .is, SQLLiteral.null).run()
        }
    }

    public func deleteUser(id: UserID) async throws {
        try await database.transaction { sql in
            try await sql.delete(from: "users").where("id", .equal, id.rawValue).run()
        }
    }

    public func deleteUnverified(registeredBefore cutoff: Date) async throws -> Int {
        try await database.transaction { sql in
            try await sql.delete(from: "users").where("email_verified_at", .is, SQLLiteral.null)
                .where("created_at", .lessThan, cutoff.storageMillis).returning("id").all().count
        }
    }

    public func avatarReferences(hash: String) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM users WHERE avatar_hash = \(bind: hash)")
                .first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }

    public func searchUsers(
        query: String, viewer: UserID, excluding: Set<UserID>, after cursor: UserSearchCursor?, limit: Int
    ) async throws -> [UserRecord] {
        let pattern = "%" + Self.escapeLike(query.lowercased()) + "%"
        // Names match in part; an address only when typed whole (someone who knows it), so that
        // search cannot be used to harvest addresses by their domain or pieces.
        let address = AccountRules.normalizeEmail(query)
        return try await database.withConnection { sql in
            var select = sql.select().columns(Self.userColumns).from("users")
                .where("id", .notEqual, viewer.rawValue)
                .where("email_verified_at", .isNot, SQLLiteral.null)
                .where(SQLGroupExpression(SQLBinaryExpression(
                    EscapedLike(column: "name_key", pattern: pattern), .or,
                    SQLBinaryExpression(SQLColumn("email"), .equal, SQLBind(address))
                )))
            if !excluding.isEmpty {
                select = select.where("id", .notIn, excluding.map(\.rawValue))
            }
            if let cursor {
                select = select.where {
                    $0.where("name_key", .greaterThan, cursor.nameKey)
                        .orWhere { $0.where("name_key", .equal, cursor.nameKey).where("id", .greaterThan, cursor.id.rawValue) }
                }
            }
            return try await select.orderBy("name_key").orderBy("id").limit(limit).all().map(Self.decodeUser)
        }
    }

    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

/// `column LIKE ? ESCAPE '\'`: SQLKit has no builder for the ESCAPE clause.
struct EscapedLike: SQLExpression {
    let column: String
    let pattern: String

    func serialize(to serializer: inout SQLSerializer) {
        SQLColumn(column).serialize(to: &serializer)
        serializer.write(" LIKE ")
        SQLBind(pattern).serialize(to: &serializer)
        serializer.write(" ESCAPE '\\'")
    }
}

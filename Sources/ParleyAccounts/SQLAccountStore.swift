import Foundation
import ParleyCore
import ParleyStorage

/// `AccountStore` in SQL: the same statements on SQLite and PostgreSQL.
public struct SQLAccountStore: AccountStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    static let userFields = [
        "id", "email", "phone_number", "name", "status", "password_hash", "date_of_birth", "avatar_hash", "email_verified_at",
        "created_at", "updated_at", "last_seen_at",
    ]
    static let userColumns = "SELECT \(userFields.joined(separator: ", ")) FROM users"

    /// What the NOT NULL UNIQUE "email" column holds for an account signed up by phone (see
    /// accounts.3). No e-mail lookup can match it: those ask for rows without a phone number.
    static func phonePlaceholder(_ phoneNumber: String) -> String { "phone:" + phoneNumber }

    static func decodeUser(_ row: Row) throws -> UserRecord {
        let phoneNumber = try row.decode(column: "phone_number", as: String?.self)
        return UserRecord(
            id: UserID(rawValue: try row.decode(column: "id", as: String.self)),
            email: phoneNumber == nil ? try row.decode(column: "email", as: String.self) : nil,
            phoneNumber: phoneNumber,
            name: try row.decode(column: "name", as: String.self),
            status: try row.decode(column: "status", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            dateOfBirth: try row.decode(column: "date_of_birth", as: String.self),
            avatarHash: try row.decode(column: "avatar_hash", as: String?.self),
            emailVerifiedAt: try row.decode(column: "email_verified_at", as: Int64?.self).map(Date.init(storageMillis:)),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(storageMillis: try row.decode(column: "updated_at", as: Int64.self)),
            lastSeenAt: try row.decode(column: "last_seen_at", as: Int64?.self).map(Date.init(storageMillis:))
        )
    }

    /// The key users are sorted and searched by: the name folded to lowercase.
    public static func nameKey(_ name: String) -> String { name.lowercased() }

    public func insertUser(_ user: UserRecord) async throws {
        try await database.write { sql in
            if let phone = user.phoneNumber {
                if try sql.first("SELECT id FROM users WHERE phone_number = ?", phone) != nil { throw AccountErrors.phoneTaken }
            } else if try sql.first("SELECT id FROM users WHERE email = ?", user.email ?? "") != nil {
                throw AccountErrors.emailTaken
            }
            try sql.execute("""
                INSERT INTO users (id, email, phone_number, name, status, password_hash, date_of_birth, avatar_hash, email_verified_at,
                  created_at, updated_at, name_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, user.id.rawValue, user.email ?? Self.phonePlaceholder(user.phoneNumber ?? ""), user.phoneNumber, user.name, user.status, user.passwordHash, user.dateOfBirth, user.avatarHash,
                user.emailVerifiedAt?.storageMillis, user.createdAt.storageMillis, user.updatedAt.storageMillis, Self.nameKey(user.name))
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await database.read { sql in
            try sql.first("\(Self.userColumns) WHERE id = ?", id.rawValue).map(Self.decodeUser)
        }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await database.read { sql in
            try sql.first("\(Self.userColumns) WHERE email = ? AND phone_number IS NULL", email).map(Self.decodeUser)
        }
    }

    public func user(phoneNumber: String) async throws -> UserRecord? {
        try await database.read { sql in
            try sql.first("\(Self.userColumns) WHERE phone_number = ?", phoneNumber).map(Self.decodeUser)
        }
    }

    public func users(ids: [UserID]) async throws -> [UserRecord] {
        if ids.isEmpty { return [] }
        return try await database.read { sql in
            try sql.query("\(Self.userColumns) WHERE id IN (\(sqlPlaceholders(ids.count)))", binding: ids.map(\.rawValue.sqlValue))
                .map(Self.decodeUser)
        }
    }

    public func markSeen(id: UserID, at: Date) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE users SET last_seen_at = ? WHERE id = ?", at.storageMillis, id.rawValue)
        }
    }

    public func updateProfile(id: UserID, name: String?, status: String?, at: Date) async throws {
        try await database.write { sql in
            // NULL keeps the column as it is.
            try sql.execute("""
                UPDATE users SET updated_at = ?, name = COALESCE(?, name), name_key = COALESCE(?, name_key),
                  status = COALESCE(?, status) WHERE id = ?
                """, at.storageMillis, name, name.map(Self.nameKey), status, id.rawValue)
        }
    }

    public func setAvatar(id: UserID, hash: String, at: Date) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE users SET avatar_hash = ?, updated_at = ? WHERE id = ?", hash, at.storageMillis, id.rawValue)
        }
    }

    public func setPassword(id: UserID, hash: String, at: Date) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?", hash, at.storageMillis, id.rawValue)
        }
    }

    public func markVerified(id: UserID, at: Date) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE users SET email_verified_at = ? WHERE id = ? AND email_verified_at IS NULL", at.storageMillis, id.rawValue)
        }
    }

    public func deleteUser(id: UserID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM users WHERE id = ?", id.rawValue)
        }
    }

    public func deleteUnverified(registeredBefore cutoff: Date) async throws -> Int {
        try await database.write { sql in
            try sql.execute("DELETE FROM users WHERE email_verified_at IS NULL AND created_at < ?", cutoff.storageMillis)
        }
    }

    public func avatarReferences(hash: String) async throws -> Int {
        try await database.read { sql in
            try sql.scalar("SELECT COUNT(*) FROM users WHERE avatar_hash = ?", hash, as: Int.self) ?? 0
        }
    }

    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

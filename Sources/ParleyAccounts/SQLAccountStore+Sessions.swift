import Foundation
import ParleyCore
import ParleyStorage

extension SQLAccountStore {
    public func createSession(_ session: SessionRecord, refreshToken: RefreshTokenRecord) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO sessions (id, user_id, device_name, created_at, ended_at, end_reason) VALUES (?, ?, ?, ?, ?, ?)
                """, session.id.rawValue, session.userID.rawValue, session.deviceName, session.createdAt.storageMillis,
                session.endedAt?.storageMillis, session.endReason)
            try Self.insert(refreshToken, sql)
        }
    }

    public func session(id: SessionID) async throws -> SessionRecord? {
        // Read for every authenticated request and now and then on every socket: one statement, alone.
        try await database.readAutocommit { sql in
            try sql.first("SELECT id, user_id, device_name, created_at, ended_at, end_reason FROM sessions WHERE id = ?", id.rawValue)
                .map { row in
                    SessionRecord(
                        id: SessionID(rawValue: try row.decode(column: "id", as: String.self)),
                        userID: UserID(rawValue: try row.decode(column: "user_id", as: String.self)),
                        deviceName: try row.decode(column: "device_name", as: String.self),
                        createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
                        endedAt: try row.decode(column: "ended_at", as: Int64?.self).map(Date.init(storageMillis:)),
                        endReason: try row.decode(column: "end_reason", as: String?.self)
                    )
                }
        }
    }

    public func rotateRefreshToken(
        digest: String, at now: Date, replacement: @escaping @Sendable (RefreshTokenRecord) -> RefreshTokenRecord
    ) async throws -> RefreshRotation {
        try await database.write { sql in
            guard let row = try sql.first("""
                SELECT digest, session_id, issued_at, expires_at, spent_at FROM refresh_tokens WHERE digest = ?
                """, digest)
            else { return .unknown }
            let old = RefreshTokenRecord(
                digest: try row.decode(column: "digest", as: String.self),
                sessionID: SessionID(rawValue: try row.decode(column: "session_id", as: String.self)),
                issuedAt: Date(storageMillis: try row.decode(column: "issued_at", as: Int64.self)),
                expiresAt: Date(storageMillis: try row.decode(column: "expires_at", as: Int64.self)),
                spentAt: try row.decode(column: "spent_at", as: Int64?.self).map(Date.init(storageMillis:))
            )
            if old.spentAt != nil { return .reused(old) }
            if old.expiresAt <= now { return .expired(old) }
            let new = replacement(old)
            try sql.execute("UPDATE refresh_tokens SET spent_at = ? WHERE digest = ?", now.storageMillis, digest)
            try Self.insert(new, sql)
            return .rotated(old: old, new: new)
        }
    }

    public func deleteExpiredTokens(before cutoff: Date) async throws -> Int {
        try await database.write { sql in
            try ["refresh_tokens", "email_tokens", "phone_codes", "email_changes"].reduce(0) { removed, table in
                removed + (try sql.execute("DELETE FROM \(table) WHERE expires_at < ?", cutoff.storageMillis))
            }
        }
    }

    public func refreshTokenSession(digest: String) async throws -> (session: SessionID, spent: Bool)? {
        try await database.read { sql in
            try sql.first("SELECT session_id, spent_at FROM refresh_tokens WHERE digest = ?", digest).map { row in
                (SessionID(rawValue: try row.decode(column: "session_id", as: String.self)),
                 try row.decode(column: "spent_at", as: Int64?.self) != nil)
            }
        }
    }

    public func sessionID(refreshTokenDigest digest: String) async throws -> SessionID? {
        try await database.read { sql in
            try sql.scalar("SELECT session_id FROM refresh_tokens WHERE digest = ?", digest, as: String.self).map(SessionID.init(rawValue:))
        }
    }

    public func endSession(id: SessionID, reason: String, at: Date) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
                            at.storageMillis, reason, id.rawValue)
        }
    }

    public func endAllSessions(userID: UserID, reason: String, at: Date) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE user_id = ? AND ended_at IS NULL",
                            at.storageMillis, reason, userID.rawValue)
        }
    }

    public func insertEmailToken(_ token: EmailTokenRecord, replacingPurposeTokens: Bool) async throws {
        try await database.write { sql in
            if replacingPurposeTokens {
                try sql.execute("DELETE FROM email_tokens WHERE user_id = ? AND purpose = ?", token.userID.rawValue, token.purpose.rawValue)
            }
            try sql.execute("INSERT INTO email_tokens (digest, user_id, purpose, expires_at, used_at) VALUES (?, ?, ?, ?, ?)",
                            token.digest, token.userID.rawValue, token.purpose.rawValue, token.expiresAt.storageMillis,
                            token.usedAt?.storageMillis)
        }
    }

    public func consumeEmailToken(digest: String, purpose: EmailTokenRecord.Purpose, at now: Date) async throws -> EmailTokenRecord? {
        try await database.write { sql in
            guard let row = try sql.first("""
                SELECT digest, user_id, purpose, expires_at, used_at FROM email_tokens WHERE digest = ? AND purpose = ?
                """, digest, purpose.rawValue)
            else { return nil }
            let token = EmailTokenRecord(
                digest: digest,
                userID: UserID(rawValue: try row.decode(column: "user_id", as: String.self)),
                purpose: purpose,
                expiresAt: Date(storageMillis: try row.decode(column: "expires_at", as: Int64.self)),
                usedAt: try row.decode(column: "used_at", as: Int64?.self).map(Date.init(storageMillis:))
            )
            guard token.usedAt == nil, token.expiresAt > now else { return nil }
            try sql.execute("UPDATE email_tokens SET used_at = ? WHERE digest = ?", now.storageMillis, digest)
            return token
        }
    }

    static func insert(_ token: RefreshTokenRecord, _ sql: Transaction) throws {
        try sql.execute("INSERT INTO refresh_tokens (digest, session_id, issued_at, expires_at, spent_at) VALUES (?, ?, ?, ?, ?)",
                        token.digest, token.sessionID.rawValue, token.issuedAt.storageMillis, token.expiresAt.storageMillis,
                        token.spentAt?.storageMillis)
    }

    public func insertPhoneCode(_ code: PhoneCodeRecord) async throws {
        try await database.write { sql in
            // A new code replaces the number's last one, attempts and all: sending is rate limited.
            try sql.execute("""
                INSERT INTO phone_codes (phone_number, digest, expires_at, attempts, used_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (phone_number) DO UPDATE SET digest = excluded.digest, expires_at = excluded.expires_at,
                  attempts = excluded.attempts, used_at = excluded.used_at
                """, code.phoneNumber, code.digest, code.expiresAt.storageMillis, code.attempts, code.usedAt?.storageMillis)
        }
    }

    public func checkPhoneCode(phoneNumber: String, digest: String, at now: Date, maxAttempts: Int) async throws -> PhoneCodeCheck {
        try await database.write { sql in
            guard let row = try sql.first("""
                SELECT digest, expires_at, attempts, used_at FROM phone_codes WHERE phone_number = ?
                """, phoneNumber)
            else { return .unknown }
            let attempts = try row.decode(column: "attempts", as: Int.self)
            guard try row.decode(column: "used_at", as: Int64?.self) == nil,
                  try row.decode(column: "expires_at", as: Int64.self) > now.storageMillis
            else { return .unknown }
            if attempts >= maxAttempts { return .locked }
            guard try row.decode(column: "digest", as: String.self) == digest else {
                try sql.execute("UPDATE phone_codes SET attempts = attempts + 1 WHERE phone_number = ?", phoneNumber)
                return .wrong(locked: attempts + 1 >= maxAttempts)
            }
            try sql.execute("UPDATE phone_codes SET used_at = ? WHERE phone_number = ?", now.storageMillis, phoneNumber)
            return .accepted
        }
    }
}

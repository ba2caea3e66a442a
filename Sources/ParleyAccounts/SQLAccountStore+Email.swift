import Foundation
import ParleyCore
import ParleyStorage

extension SQLAccountStore {
    public func insertEmailChange(_ change: EmailChangeRecord) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO email_changes (user_id, new_email, digest, expires_at, attempts) VALUES (?, ?, ?, ?, 0)
                ON CONFLICT (user_id) DO UPDATE SET new_email = excluded.new_email, digest = excluded.digest,
                  expires_at = excluded.expires_at, attempts = 0
                """, change.userID.rawValue, change.newEmail, change.digest, change.expiresAt.storageMillis)
        }
    }

    public func confirmEmailChange(userID: UserID, digest: String, at now: Date, maxAttempts: Int) async throws -> EmailChangeOutcome {
        try await database.write { sql in
            guard let row = try sql.first("""
                SELECT new_email, digest, expires_at, attempts FROM email_changes WHERE user_id = ?
                """, userID.rawValue),
                try row.decode(column: "expires_at", as: Int64.self) > now.storageMillis
            else { return .code(.unknown) }
            let attempts = try row.decode(column: "attempts", as: Int.self)
            if attempts >= maxAttempts { return .code(.locked) }
            guard try row.decode(column: "digest", as: String.self) == digest else {
                try sql.execute("UPDATE email_changes SET attempts = attempts + 1 WHERE user_id = ?", userID.rawValue)
                return .code(.wrong(locked: attempts + 1 >= maxAttempts))
            }
            let newEmail = try row.decode(column: "new_email", as: String.self)
            try sql.execute("DELETE FROM email_changes WHERE user_id = ?", userID.rawValue)
            if try sql.first("SELECT id FROM users WHERE email = ? AND id <> ?", newEmail, userID.rawValue) != nil { return .taken }
            guard let old = try sql.scalar("SELECT email FROM users WHERE id = ?", userID.rawValue, as: String.self) else {
                return .code(.unknown)
            }
            try sql.execute("UPDATE users SET email = ?, updated_at = ? WHERE id = ?", newEmail, now.storageMillis, userID.rawValue)
            return .changed(from: old, to: newEmail)
        }
    }
}

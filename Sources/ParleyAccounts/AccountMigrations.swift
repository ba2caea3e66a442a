import ParleyStorage
import SQLKit

/// The Accounts schema, in versions. Never edit a shipped step: add the next one.
public enum AccountMigrations {
    public static let all: [Migration] = [
        Migration("accounts.1") { sql in
            try await sql.create(table: "users")
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("email", type: .text, .notNull, .unique)
                .column("name", type: .text, .notNull)
                .column("name_key", type: .text, .notNull)
                .column("status", type: .text, .notNull)
                .column("password_hash", type: .text, .notNull)
                .column("date_of_birth", type: .text, .notNull)
                .column("avatar_hash", type: .text)
                .column("email_verified_at", type: .bigint)
                .column("created_at", type: .bigint, .notNull)
                .column("updated_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "users_name_key").on("users").column("name_key").column("id").run()
            try await sql.create(table: "sessions")
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("device_name", type: .text, .notNull)
                .column("created_at", type: .bigint, .notNull)
                .column("ended_at", type: .bigint)
                .column("end_reason", type: .text)
                .run()
            try await sql.create(index: "sessions_user").on("sessions").column("user_id").run()
            try await sql.create(table: "refresh_tokens")
                .column("digest", type: .text, .primaryKey(autoIncrement: false))
                .column("session_id", type: .text, .notNull, .references("sessions", "id", onDelete: .cascade))
                .column("issued_at", type: .bigint, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .column("spent_at", type: .bigint)
                .run()
            try await sql.create(index: "refresh_tokens_session").on("refresh_tokens").column("session_id").run()
            try await sql.create(table: "email_tokens")
                .column("digest", type: .text, .primaryKey(autoIncrement: false))
                .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("purpose", type: .text, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .column("used_at", type: .bigint)
                .run()
            try await sql.create(index: "email_tokens_user").on("email_tokens").column("user_id").run()
        },
    ]
}

import ParleyStorage

/// The Accounts schema, in versions. Never edit a shipped step: add the next one.
public enum AccountMigrations {
    public static let all: [Migration] = [
        Migration("accounts.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "users" ("id" TEXT PRIMARY KEY, "email" TEXT NOT NULL UNIQUE, "name" TEXT NOT NULL, "name_key" TEXT NOT NULL, "status" TEXT NOT NULL, "password_hash" TEXT NOT NULL, "date_of_birth" TEXT NOT NULL, "avatar_hash" TEXT, "email_verified_at" INTEGER, "created_at" INTEGER NOT NULL, "updated_at" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE INDEX "users_name_key" ON "users" ("name_key", "id")
                """#)
            try sql.execute(#"""
                CREATE TABLE "sessions" ("id" TEXT PRIMARY KEY, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "device_name" TEXT NOT NULL, "created_at" INTEGER NOT NULL, "ended_at" INTEGER, "end_reason" TEXT)
                """#)
            try sql.execute(#"""
                CREATE INDEX "sessions_user" ON "sessions" ("user_id")
                """#)
            try sql.execute(#"""
                CREATE TABLE "refresh_tokens" ("digest" TEXT PRIMARY KEY, "session_id" TEXT NOT NULL REFERENCES "sessions" ("id") ON DELETE CASCADE, "issued_at" INTEGER NOT NULL, "expires_at" INTEGER NOT NULL, "spent_at" INTEGER)
                """#)
            try sql.execute(#"""
                CREATE INDEX "refresh_tokens_session" ON "refresh_tokens" ("session_id")
                """#)
            try sql.execute(#"""
                CREATE TABLE "email_tokens" ("digest" TEXT PRIMARY KEY, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "purpose" TEXT NOT NULL, "expires_at" INTEGER NOT NULL, "used_at" INTEGER)
                """#)
            try sql.execute(#"""
                CREATE INDEX "email_tokens_user" ON "email_tokens" ("user_id")
                """#)
        },
        Migration("accounts.2") { sql in
            // Search by any part of a name on an index: SQLite's FTS5 with trigrams over name_key
            // (case-folded), kept by triggers and built once from the rows already there. It
            // follows users by rowid, which only VACUUM renumbers (run 'rebuild' after one).
            // PostgreSQL has a pg_trgm GIN index on name_key instead, which its ILIKE uses.
            guard sql.kind == .sqlite else {
                try sql.createTrigramIndex("users_name_key_trgm", on: "users", column: "name_key")
                return
            }
            try sql.execute(script: """
                CREATE VIRTUAL TABLE users_search USING fts5(name_key, content='users', content_rowid='rowid', tokenize='trigram');
                CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
                  INSERT INTO users_search (rowid, name_key) VALUES (new.rowid, new.name_key);
                END;
                CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
                  INSERT INTO users_search (users_search, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
                END;
                CREATE TRIGGER users_search_update AFTER UPDATE OF name_key ON users BEGIN
                  INSERT INTO users_search (users_search, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
                  INSERT INTO users_search (rowid, name_key) VALUES (new.rowid, new.name_key);
                END;
                INSERT INTO users_search (users_search) VALUES ('rebuild');
                """)
        },
        Migration("accounts.3") { sql in
            // Sign-up by phone number (seed 003): a unique E.164 number beside the e-mail address.
            // Such an account's "email" column holds a placeholder (see SQLAccountStore.phonePlaceholder):
            // SQLite cannot drop a NOT NULL without rebuilding "users", and a rebuild would cascade
            // deletes into every table that references it.
            try sql.execute(#"ALTER TABLE "users" ADD COLUMN "phone_number" TEXT"#)
            try sql.execute(#"CREATE UNIQUE INDEX "users_phone_number" ON "users" ("phone_number")"#)
            try sql.execute(#"""
                CREATE TABLE "phone_codes" ("phone_number" TEXT PRIMARY KEY, "digest" TEXT NOT NULL, "expires_at" INTEGER NOT NULL, "attempts" INTEGER NOT NULL, "used_at" INTEGER)
                """#)
        },
        // When a user's last realtime connection closed (presence: "last seen").
        Migration("accounts.4") { sql in
            try sql.execute(#"ALTER TABLE "users" ADD COLUMN "last_seen_at" INTEGER"#)
        },
        // A new e-mail address waiting for the code mailed to it (one per user).
        Migration("accounts.5") { sql in
            try sql.execute(#"""
                CREATE TABLE "email_changes" ("user_id" TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE, "new_email" TEXT NOT NULL, "digest" TEXT NOT NULL, "expires_at" INTEGER NOT NULL, "attempts" INTEGER NOT NULL)
                """#)
        },
        // Rate limits counted in the database, for nodes that share it (SQLRateCounter).
        Migration("accounts.6") { sql in
            try sql.execute(#"CREATE TABLE "rate_events" ("name" TEXT NOT NULL, "key" TEXT NOT NULL, "at" INTEGER NOT NULL)"#)
            try sql.execute(#"CREATE INDEX "rate_events_window" ON "rate_events" ("name", "key", "at")"#)
        },
        // Old rows of keys that never act again are pruned by time (RateEventPruner): a range on this.
        Migration("accounts.7") { sql in
            try sql.execute(#"CREATE INDEX "rate_events_at" ON "rate_events" ("at")"#)
        },
    ]
}

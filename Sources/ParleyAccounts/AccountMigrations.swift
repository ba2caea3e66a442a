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
        // Search on SQLite in name order (docs/benchmarks.md, "User search"): every trigram of
        // every name_key with the name key beside it, so the users matching a part of a name are
        // read in name order from one trigram's entries — a page costs its own rows, not a sort of
        // every match (FTS5 returned matches in rowid order: a fragment such as "zoe", bunched in
        // name order with 15 000 matches, was sorted in full). It replaces accounts.2's FTS5 table.
        // Kept by triggers; `user` is the users rowid, which only VACUUM renumbers (rebuild the
        // table after one). The trigrams of a name come from a JSON array of one element per
        // position (triggers cannot use WITH): substr counts characters, as Swift's unicode scalars.
        // user_trigram_counts says how many entries each trigram has, so that a search walks the
        // entries of its query's rarest trigram. PostgreSQL keeps its pg_trgm index (accounts.2);
        // CopyPlan skips these tables (`*_trigrams`, `*_trigram_counts`).
        Migration("accounts.8") { sql in
            guard sql.kind == .sqlite else { return }
            func positions(_ key: String) -> String {
                "json_each('[' || substr(replace(substr(printf('%.*c', length(\(key)), '0'), 3), '0', ',0'), 2) || ']')"
            }
            // A row's entries, and how many entries each trigram has (what a search walks the rarest of).
            func add(_ row: String) -> String {
                """
                INSERT OR IGNORE INTO user_trigrams (trigram, name_key, user)
                    SELECT substr(\(row).name_key, key + 1, 3), \(row).name_key, \(row).rowid FROM \(positions("\(row).name_key"));
                  INSERT INTO user_trigram_counts (trigram, n)
                    SELECT DISTINCT substr(\(row).name_key, key + 1, 3), 1 FROM \(positions("\(row).name_key")) WHERE true
                    ON CONFLICT (trigram) DO UPDATE SET n = n + 1;
                """
            }
            func remove(_ row: String) -> String {
                """
                DELETE FROM user_trigrams WHERE name_key = \(row).name_key AND user = \(row).rowid
                    AND trigram IN (SELECT substr(\(row).name_key, key + 1, 3) FROM \(positions("\(row).name_key")));
                  UPDATE user_trigram_counts SET n = n - 1
                    WHERE trigram IN (SELECT substr(\(row).name_key, key + 1, 3) FROM \(positions("\(row).name_key")));
                """
            }
            try sql.execute(script: """
                DROP TRIGGER IF EXISTS users_search_insert;
                DROP TRIGGER IF EXISTS users_search_delete;
                DROP TRIGGER IF EXISTS users_search_update;
                DROP TABLE IF EXISTS users_search;
                CREATE TABLE user_trigrams (trigram TEXT NOT NULL, name_key TEXT NOT NULL, user INTEGER NOT NULL,
                  PRIMARY KEY (trigram, name_key, user)) WITHOUT ROWID;
                INSERT OR IGNORE INTO user_trigrams (trigram, name_key, user)
                  SELECT substr(u.name_key, p.key + 1, 3), u.name_key, u.rowid FROM users u, \(positions("u.name_key")) p
                  ORDER BY 1, 2, 3;
                CREATE TABLE user_trigram_counts (trigram TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO user_trigram_counts (trigram, n) SELECT trigram, COUNT(*) FROM user_trigrams GROUP BY trigram;
                CREATE TRIGGER user_trigrams_insert AFTER INSERT ON users BEGIN
                  \(add("new"))
                END;
                CREATE TRIGGER user_trigrams_delete AFTER DELETE ON users BEGIN
                  \(remove("old"))
                END;
                CREATE TRIGGER user_trigrams_update AFTER UPDATE OF name_key ON users BEGIN
                  \(remove("old"))
                  \(add("new"))
                END;
                """)
        },
    ]
}

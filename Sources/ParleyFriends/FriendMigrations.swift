import ParleyStorage

/// The Friends schema. A friendship is stored once, as the ordered pair (user_low < user_high).
public enum FriendMigrations {
    public static let all: [Migration] = [
        Migration("friends.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "friend_requests" ("id" TEXT PRIMARY KEY, "from_user" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "to_user" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "created_at" INTEGER NOT NULL, UNIQUE ("from_user", "to_user"))
                """#)
            try sql.execute(#"""
                CREATE INDEX "friend_requests_to" ON "friend_requests" ("to_user")
                """#)
            try sql.execute(#"""
                CREATE TABLE "friendships" ("user_low" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "user_high" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "created_at" INTEGER NOT NULL, PRIMARY KEY ("user_low", "user_high"))
                """#)
            try sql.execute(#"""
                CREATE INDEX "friendships_high" ON "friendships" ("user_high")
                """#)
            try sql.execute(#"""
                CREATE TABLE "blocks" ("blocker" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "blocked" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "created_at" INTEGER NOT NULL, PRIMARY KEY ("blocker", "blocked"))
                """#)
            try sql.execute(#"""
                CREATE INDEX "blocks_blocked" ON "blocks" ("blocked")
                """#)
        },
        // Who may message a user and who sees their presence; no row means the defaults.
        Migration("friends.2") { sql in
            try sql.execute(#"""
                CREATE TABLE "privacy_settings" ("user_id" TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE, "messages_from" TEXT NOT NULL, "presence_visible_to" TEXT NOT NULL)
                """#)
        },
    ]
}

import ParleyStorage

public enum StoryMigrations {
    public static let all: [Migration] = [
        Migration("stories.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "stories" ("id" TEXT PRIMARY KEY, "owner_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "attachment_id" TEXT NOT NULL, "title" TEXT NOT NULL, "kind" TEXT NOT NULL, "duration_ms" INTEGER, "created_at" INTEGER NOT NULL, "expires_at" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE INDEX "stories_owner" ON "stories" ("owner_id", "expires_at")
                """#)
            try sql.execute(#"""
                CREATE INDEX "stories_attachment" ON "stories" ("attachment_id")
                """#)
            try sql.execute(#"""
                CREATE TABLE "story_views" ("story_id" TEXT NOT NULL REFERENCES "stories" ("id") ON DELETE CASCADE, "viewer_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "viewed_at" INTEGER NOT NULL, PRIMARY KEY ("story_id", "viewer_id"))
                """#)
        },
    ]
}

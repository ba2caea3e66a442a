import ParleyStorage

/// The Chat schema: dialogs, their members, messages (numbered per dialog) and attachments.
public enum ChatMigrations {
    public static let all: [Migration] = [
        Migration("chat.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "attachments" ("id" TEXT PRIMARY KEY, "uploader_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "hash" TEXT NOT NULL, "kind" TEXT NOT NULL, "content_type" TEXT NOT NULL, "size" INTEGER NOT NULL, "duration_ms" INTEGER, "width" INTEGER, "height" INTEGER, "created_at" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE TABLE "dialogs" ("id" TEXT PRIMARY KEY, "type" TEXT NOT NULL, "name" TEXT, "avatar_attachment_id" TEXT, "pair_key" TEXT UNIQUE, "created_by" TEXT NOT NULL, "created_at" INTEGER NOT NULL, "updated_at" INTEGER NOT NULL, "last_message_seq" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE TABLE "dialog_members" ("dialog_id" TEXT NOT NULL REFERENCES "dialogs" ("id") ON DELETE CASCADE, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "joined_at" INTEGER NOT NULL, "read_seq" INTEGER NOT NULL, "cleared_seq" INTEGER NOT NULL, "hidden" INTEGER NOT NULL, PRIMARY KEY ("dialog_id", "user_id"))
                """#)
            try sql.execute(#"""
                CREATE INDEX "dialog_members_user" ON "dialog_members" ("user_id")
                """#)
            try sql.execute(#"""
                CREATE TABLE "messages" ("id" TEXT PRIMARY KEY, "dialog_id" TEXT NOT NULL REFERENCES "dialogs" ("id") ON DELETE CASCADE, "seq" INTEGER NOT NULL, "sender_id" TEXT NOT NULL, "client_message_id" TEXT NOT NULL, "kind" TEXT NOT NULL, "text" TEXT, "attachment_id" TEXT, "call" TEXT, "created_at" INTEGER NOT NULL, UNIQUE ("dialog_id", "seq"), UNIQUE ("dialog_id", "sender_id", "client_message_id"))
                """#)
            try sql.execute(#"""
                CREATE INDEX "messages_attachment" ON "messages" ("attachment_id")
                """#)
        },
        // The attachment quota sums a user's uploads.
        Migration("chat.2") { sql in
            try sql.execute(#"""
                CREATE INDEX "attachments_uploader" ON "attachments" ("uploader_id")
                """#)
        },
        // Group owners (the creator until they leave), location messages and forwards.
        Migration("chat.3") { sql in
            try sql.execute(#"ALTER TABLE "dialogs" ADD COLUMN "owner_id" TEXT"#)
            try sql.execute(#"UPDATE "dialogs" SET "owner_id" = "created_by" WHERE "type" = 'group'"#)
            try sql.execute(#"ALTER TABLE "messages" ADD COLUMN "location" TEXT"#)
            try sql.execute(#"ALTER TABLE "messages" ADD COLUMN "forwarded_from" TEXT"#)
        },
        // A stranger's private dialog waits as a request until its receiver accepts it (the row
        // stays, `accepted`) or declines it (the row and the messages from first_seq on go).
        Migration("chat.4") { sql in
            try sql.execute(#"""
                CREATE TABLE "message_requests" ("dialog_id" TEXT PRIMARY KEY REFERENCES "dialogs" ("id") ON DELETE CASCADE, "from_user" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "to_user" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "status" TEXT NOT NULL, "first_seq" INTEGER NOT NULL, "created_at" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE INDEX "message_requests_to" ON "message_requests" ("to_user", "status")
                """#)
        },
        // A message is inserted only by the statement that moves its dialog's counter (the row
        // locked there, or no message): on PostgreSQL messages follow their dialog by a trigger,
        // not a key checked for each message.
        Migration("chat.5") { sql in
            try sql.deleteWithParent("messages", column: "dialog_id", parent: "dialogs")
        },
    ]
}

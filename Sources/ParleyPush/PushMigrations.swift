import ParleyStorage

/// Devices' APNs tokens, each user's notification switches, and the dialogs they muted.
public enum PushMigrations {
    public static let all: [Migration] = [
        Migration("push.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "push_devices" ("session_id" TEXT PRIMARY KEY REFERENCES "sessions" ("id") ON DELETE CASCADE, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "alert_token" TEXT, "voip_token" TEXT, "bundle_id" TEXT NOT NULL, "environment" TEXT NOT NULL, "updated_at" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE INDEX "push_devices_user" ON "push_devices" ("user_id")
                """#)
            try sql.execute(#"""
                CREATE TABLE "notification_settings" ("user_id" TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE, "messages" INTEGER NOT NULL, "friend_requests" INTEGER NOT NULL, "calls" INTEGER NOT NULL, "previews" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE TABLE "muted_dialogs" ("user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "dialog_id" TEXT NOT NULL, PRIMARY KEY ("user_id", "dialog_id"))
                """#)
        },
    ]
}

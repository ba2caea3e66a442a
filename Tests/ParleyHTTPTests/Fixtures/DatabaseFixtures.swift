/// A database as the storage layer before the writer thread left it (SQLKit over SQLiteNIO), made
/// by `parley` at 816b022 and filled through the sqlite3 shell: its schema, migrations and rows.
enum DatabaseFixtures {
    static let before2026_11_25 = #"""
        CREATE TABLE IF NOT EXISTS "parley_migrations" ("id" TEXT PRIMARY KEY, "applied_at" INTEGER NOT NULL);
        INSERT INTO parley_migrations VALUES('accounts.1',1795568031460);
        INSERT INTO parley_migrations VALUES('friends.1',1795568031460);
        INSERT INTO parley_migrations VALUES('events.1',1795568031460);
        INSERT INTO parley_migrations VALUES('events.2',1795568031460);
        INSERT INTO parley_migrations VALUES('chat.1',1795568031460);
        INSERT INTO parley_migrations VALUES('stories.1',1795568031460);
        INSERT INTO parley_migrations VALUES('calls.1',1795568031460);
        INSERT INTO parley_migrations VALUES('push.1',1795568031460);
        CREATE TABLE IF NOT EXISTS "users" ("id" TEXT PRIMARY KEY, "email" TEXT NOT NULL UNIQUE, "name" TEXT NOT NULL, "name_key" TEXT NOT NULL, "status" TEXT NOT NULL, "password_hash" TEXT NOT NULL, "date_of_birth" TEXT NOT NULL, "avatar_hash" TEXT, "email_verified_at" INTEGER, "created_at" INTEGER NOT NULL, "updated_at" INTEGER NOT NULL);
        INSERT INTO users VALUES('u-ann','ann@example.com','Ann Lee','ann lee','','$2b$04$abcdefghijklmnopqrstuu7J6bq5Gc2qz0sJQ3O7m0Vd0m5Dd4E2y','1990-01-01',NULL,1795340000000,1795340000000,1795340000000);
        INSERT INTO users VALUES('u-bo','bo@example.com','Bo Chen','bo chen','','$2b$04$abcdefghijklmnopqrstuu7J6bq5Gc2qz0sJQ3O7m0Vd0m5Dd4E2y','1991-02-02',NULL,1795340000000,1795340000000,1795340000000);
        CREATE TABLE IF NOT EXISTS "sessions" ("id" TEXT PRIMARY KEY, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "device_name" TEXT NOT NULL, "created_at" INTEGER NOT NULL, "ended_at" INTEGER, "end_reason" TEXT);
        CREATE TABLE IF NOT EXISTS "refresh_tokens" ("digest" TEXT PRIMARY KEY, "session_id" TEXT NOT NULL REFERENCES "sessions" ("id") ON DELETE CASCADE, "issued_at" INTEGER NOT NULL, "expires_at" INTEGER NOT NULL, "spent_at" INTEGER);
        CREATE TABLE IF NOT EXISTS "email_tokens" ("digest" TEXT PRIMARY KEY, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "purpose" TEXT NOT NULL, "expires_at" INTEGER NOT NULL, "used_at" INTEGER);
        CREATE TABLE IF NOT EXISTS "friend_requests" ("id" TEXT PRIMARY KEY, "from_user" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "to_user" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "created_at" INTEGER NOT NULL, UNIQUE ("from_user", "to_user"));
        CREATE TABLE IF NOT EXISTS "friendships" ("user_low" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "user_high" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "created_at" INTEGER NOT NULL, PRIMARY KEY ("user_low", "user_high"));
        INSERT INTO friendships VALUES('u-ann','u-bo',1795340000000);
        CREATE TABLE IF NOT EXISTS "blocks" ("blocker" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "blocked" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "created_at" INTEGER NOT NULL, PRIMARY KEY ("blocker", "blocked"));
        CREATE TABLE IF NOT EXISTS "user_event_heads" ("user_id" TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE, "last_seq" INTEGER NOT NULL);
        INSERT INTO user_event_heads VALUES('u-bo',3);
        CREATE TABLE IF NOT EXISTS "user_events" ("user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "seq" INTEGER NOT NULL, "type" TEXT NOT NULL, "payload" TEXT NOT NULL, "created_at" INTEGER NOT NULL, "except_session" TEXT, PRIMARY KEY ("user_id", "seq"));
        INSERT INTO user_events VALUES('u-bo',3,'message.new','{}',1795340003000,NULL);
        CREATE TABLE IF NOT EXISTS "attachments" ("id" TEXT PRIMARY KEY, "uploader_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "hash" TEXT NOT NULL, "kind" TEXT NOT NULL, "content_type" TEXT NOT NULL, "size" INTEGER NOT NULL, "duration_ms" INTEGER, "width" INTEGER, "height" INTEGER, "created_at" INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS "dialogs" ("id" TEXT PRIMARY KEY, "type" TEXT NOT NULL, "name" TEXT, "avatar_attachment_id" TEXT, "pair_key" TEXT UNIQUE, "created_by" TEXT NOT NULL, "created_at" INTEGER NOT NULL, "updated_at" INTEGER NOT NULL, "last_message_seq" INTEGER NOT NULL);
        INSERT INTO dialogs VALUES('d-1','private',NULL,NULL,'u-ann:u-bo','u-ann',1795340000000,1795340003000,3);
        CREATE TABLE IF NOT EXISTS "dialog_members" ("dialog_id" TEXT NOT NULL REFERENCES "dialogs" ("id") ON DELETE CASCADE, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "joined_at" INTEGER NOT NULL, "read_seq" INTEGER NOT NULL, "cleared_seq" INTEGER NOT NULL, "hidden" INTEGER NOT NULL, PRIMARY KEY ("dialog_id", "user_id"));
        INSERT INTO dialog_members VALUES('d-1','u-ann',1795340000000,3,0,0);
        INSERT INTO dialog_members VALUES('d-1','u-bo',1795340000000,1,0,0);
        CREATE TABLE IF NOT EXISTS "messages" ("id" TEXT PRIMARY KEY, "dialog_id" TEXT NOT NULL REFERENCES "dialogs" ("id") ON DELETE CASCADE, "seq" INTEGER NOT NULL, "sender_id" TEXT NOT NULL, "client_message_id" TEXT NOT NULL, "kind" TEXT NOT NULL, "text" TEXT, "attachment_id" TEXT, "call" TEXT, "created_at" INTEGER NOT NULL, UNIQUE ("dialog_id", "seq"), UNIQUE ("dialog_id", "sender_id", "client_message_id"));
        INSERT INTO messages VALUES('m-1','d-1',1,'u-ann','c1','text','first',NULL,NULL,1795340001000);
        INSERT INTO messages VALUES('m-2','d-1',2,'u-bo','c2','text','second',NULL,NULL,1795340002000);
        INSERT INTO messages VALUES('m-3','d-1',3,'u-ann','c3','text','third',NULL,NULL,1795340003000);
        CREATE TABLE IF NOT EXISTS "stories" ("id" TEXT PRIMARY KEY, "owner_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "attachment_id" TEXT NOT NULL, "title" TEXT NOT NULL, "kind" TEXT NOT NULL, "duration_ms" INTEGER, "created_at" INTEGER NOT NULL, "expires_at" INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS "story_views" ("story_id" TEXT NOT NULL REFERENCES "stories" ("id") ON DELETE CASCADE, "viewer_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "viewed_at" INTEGER NOT NULL, PRIMARY KEY ("story_id", "viewer_id"));
        CREATE TABLE IF NOT EXISTS "calls" ("id" TEXT PRIMARY KEY, "caller_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "callee_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "media" TEXT NOT NULL, "reason" TEXT NOT NULL, "answered" INTEGER NOT NULL, "started_at" INTEGER NOT NULL, "duration_seconds" INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS "push_devices" ("session_id" TEXT PRIMARY KEY REFERENCES "sessions" ("id") ON DELETE CASCADE, "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "alert_token" TEXT, "voip_token" TEXT, "bundle_id" TEXT NOT NULL, "environment" TEXT NOT NULL, "updated_at" INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS "notification_settings" ("user_id" TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE, "messages" INTEGER NOT NULL, "friend_requests" INTEGER NOT NULL, "calls" INTEGER NOT NULL, "previews" INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS "muted_dialogs" ("user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "dialog_id" TEXT NOT NULL, PRIMARY KEY ("user_id", "dialog_id"));
        CREATE INDEX "users_name_key" ON "users" ("name_key", "id");
        CREATE INDEX "sessions_user" ON "sessions" ("user_id");
        CREATE INDEX "refresh_tokens_session" ON "refresh_tokens" ("session_id");
        CREATE INDEX "email_tokens_user" ON "email_tokens" ("user_id");
        CREATE INDEX "friend_requests_to" ON "friend_requests" ("to_user");
        CREATE INDEX "friendships_high" ON "friendships" ("user_high");
        CREATE INDEX "blocks_blocked" ON "blocks" ("blocked");
        CREATE INDEX "user_events_created" ON "user_events" ("created_at");
        CREATE INDEX "dialog_members_user" ON "dialog_members" ("user_id");
        CREATE INDEX "messages_attachment" ON "messages" ("attachment_id");
        CREATE INDEX "stories_owner" ON "stories" ("owner_id", "expires_at");
        CREATE INDEX "stories_attachment" ON "stories" ("attachment_id");
        CREATE INDEX "calls_caller" ON "calls" ("caller_id", "started_at");
        CREATE INDEX "calls_callee" ON "calls" ("callee_id", "started_at");
        CREATE INDEX "push_devices_user" ON "push_devices" ("user_id");
        """#
}

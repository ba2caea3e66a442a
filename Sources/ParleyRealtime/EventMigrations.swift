import ParleyStorage

/// Per-user event log: every event a user is sent, numbered in that user's sequence.
public enum EventMigrations {
    public static let all: [Migration] = [
        Migration("events.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "user_event_heads" ("user_id" TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE, "last_seq" INTEGER NOT NULL)
                """#)
            try sql.execute(#"""
                CREATE TABLE "user_events" ("user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "seq" INTEGER NOT NULL, "type" TEXT NOT NULL, "payload" TEXT NOT NULL, "created_at" INTEGER NOT NULL, PRIMARY KEY ("user_id", "seq"))
                """#)
            try sql.execute(#"""
                CREATE INDEX "user_events_created" ON "user_events" ("created_at")
                """#)
        },
        Migration("events.2") { sql in
            // An event every device of the user gets but one (answered elsewhere).
            try sql.execute(#"ALTER TABLE "user_events" ADD COLUMN "except_session" TEXT"#)
        },
        Migration("events.3") { sql in
            // Signals between nodes too large for one notification (SharedNodeBus), kept a minute.
            try sql.execute(#"CREATE TABLE "node_parcels" ("id" TEXT PRIMARY KEY, "body" TEXT NOT NULL, "created_at" INTEGER NOT NULL)"#)
            try sql.execute(#"CREATE INDEX "node_parcels_created" ON "node_parcels" ("created_at")"#)
        },
        Migration("events.4") { sql in
            // Every event is stored beside its recipient's head, upserted in the same statement,
            // whose own foreign key refuses an account that is gone: on PostgreSQL the events follow
            // their account by a trigger, not a key checked for each event.
            try sql.deleteWithParent("user_events", column: "user_id", parent: "users")
        },
    ]
}

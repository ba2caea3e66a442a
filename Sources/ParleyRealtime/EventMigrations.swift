import ParleyStorage
import SQLKit

/// Per-user event log: every event a user is sent, numbered in that user's sequence.
public enum EventMigrations {
    public static let all: [Migration] = [
        Migration("events.1") { sql in
            try await sql.create(table: "user_event_heads")
                .column("user_id", type: .text, .primaryKey(autoIncrement: false), .references("users", "id", onDelete: .cascade))
                .column("last_seq", type: .bigint, .notNull)
                .run()
            try await sql.create(table: "user_events")
                .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("seq", type: .bigint, .notNull)
                .column("type", type: .text, .notNull)
                .column("payload", type: .text, .notNull)
                .column("created_at", type: .bigint, .notNull)
                .primaryKey("user_id", "seq")
                .run()
            try await sql.create(index: "user_events_created").on("user_events").column("created_at").run()
        },
        Migration("events.2") { sql in
            // An event every device of the user gets but one (answered elsewhere).
            try await sql.alter(table: "user_events").column("except_session", type: .text).run()
        },
    ]
}

import ParleyStorage
import SQLKit

/// Devices' APNs tokens, each user's notification switches, and the dialogs they muted.
public enum PushMigrations {
    public static let all: [Migration] = [
        Migration("push.1") { sql in
            // One row per signed-in device (session) that registered; it goes with the session.
            try await sql.create(table: "push_devices")
                .column("session_id", type: .text, .primaryKey(autoIncrement: false), .references("sessions", "id", onDelete: .cascade))
                .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("alert_token", type: .text)
                .column("voip_token", type: .text)
                .column("bundle_id", type: .text, .notNull)
                .column("environment", type: .text, .notNull)
                .column("updated_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "push_devices_user").on("push_devices").column("user_id").run()
            try await sql.create(table: "notification_settings")
                .column("user_id", type: .text, .primaryKey(autoIncrement: false), .references("users", "id", onDelete: .cascade))
                .column("messages", type: .int, .notNull)
                .column("friend_requests", type: .int, .notNull)
                .column("calls", type: .int, .notNull)
                .column("previews", type: .int, .notNull)
                .run()
            try await sql.create(table: "muted_dialogs")
                .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("dialog_id", type: .text, .notNull)
                .primaryKey("user_id", "dialog_id")
                .run()
        },
    ]
}

import ParleyStorage
import SQLKit

/// The Friends schema. A friendship is stored once, as the ordered pair (user_low < user_high).
public enum FriendMigrations {
    public static let all: [Migration] = [
        Migration("friends.1") { sql in
            try await sql.create(table: "friend_requests")
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("from_user", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("to_user", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("created_at", type: .bigint, .notNull)
                .unique("from_user", "to_user")
                .run()
            try await sql.create(index: "friend_requests_to").on("friend_requests").column("to_user").run()
            try await sql.create(table: "friendships")
                .column("user_low", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("user_high", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("created_at", type: .bigint, .notNull)
                .primaryKey("user_low", "user_high")
                .run()
            try await sql.create(index: "friendships_high").on("friendships").column("user_high").run()
            try await sql.create(table: "blocks")
                .column("blocker", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("blocked", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("created_at", type: .bigint, .notNull)
                .primaryKey("blocker", "blocked")
                .run()
            try await sql.create(index: "blocks_blocked").on("blocks").column("blocked").run()
        },
    ]
}

import ParleyStorage
import SQLKit

public enum StoryMigrations {
    public static let all: [Migration] = [
        Migration("stories.1") { sql in
            try await sql.create(table: "stories")
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("owner_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("attachment_id", type: .text, .notNull)
                .column("title", type: .text, .notNull)
                .column("kind", type: .text, .notNull)
                .column("duration_ms", type: .bigint)
                .column("created_at", type: .bigint, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "stories_owner").on("stories").column("owner_id").column("expires_at").run()
            try await sql.create(index: "stories_attachment").on("stories").column("attachment_id").run()
            try await sql.create(table: "story_views")
                .column("story_id", type: .text, .notNull, .references("stories", "id", onDelete: .cascade))
                .column("viewer_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("viewed_at", type: .bigint, .notNull)
                .primaryKey("story_id", "viewer_id")
                .run()
        },
    ]
}

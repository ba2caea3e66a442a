import Foundation
import ParleyCore
import ParleyStorage

/// What Stories needs from storage.
public protocol StoryStore: Sendable {
    func insert(_ story: StoryRecord) async throws
    func story(id: StoryID) async throws -> StoryRecord?
    /// Unexpired stories of these owners, newest first.
    func live(owners: [UserID], at: Date) async throws -> [StoryRecord]
    /// Records a view once; returns false when this viewer had already seen it.
    func recordView(_ story: StoryID, viewer: UserID, at: Date) async throws -> Bool
    func viewers(of story: StoryID) async throws -> [StoryView]
    func seen(by viewer: UserID, among stories: [StoryID]) async throws -> Set<StoryID>
    func delete(_ story: StoryID) async throws
    /// Removes expired stories; returns their attachments.
    func removeExpired(before: Date) async throws -> [AttachmentID]
    /// Unexpired stories that show this attachment.
    func liveStories(showing attachment: AttachmentID, at: Date) async throws -> [StoryRecord]
    func references(to attachment: AttachmentID) async throws -> Int
}

public struct SQLStoryStore: StoryStore {
    let database: Database

    public init(database: Database) { self.database = database }

    /// The stories' columns and how many have viewed each.
    static let select = """
        SELECT stories.id, stories.owner_id, stories.attachment_id, stories.title, stories.kind, stories.duration_ms,
          stories.created_at, stories.expires_at,
          (SELECT COUNT(*) FROM story_views v WHERE v.story_id = stories.id) AS view_count
        FROM stories
        """

    static func decode(_ row: Row) throws -> StoryRecord {
        StoryRecord(
            id: StoryID(rawValue: try row.decode(column: "id", as: String.self)),
            ownerID: UserID(rawValue: try row.decode(column: "owner_id", as: String.self)),
            attachmentID: AttachmentID(rawValue: try row.decode(column: "attachment_id", as: String.self)),
            title: try row.decode(column: "title", as: String.self),
            kind: try row.decode(column: "kind", as: String.self),
            durationMs: try row.decode(column: "duration_ms", as: Int?.self),
            createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Date(storageMillis: try row.decode(column: "expires_at", as: Int64.self)),
            viewCount: try row.decode(column: "view_count", as: Int.self))
    }

    public func insert(_ s: StoryRecord) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO stories (id, owner_id, attachment_id, title, kind, duration_ms, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, s.id.rawValue, s.ownerID.rawValue, s.attachmentID.rawValue, s.title, s.kind, s.durationMs,
                s.createdAt.storageMillis, s.expiresAt.storageMillis)
        }
    }

    public func story(id: StoryID) async throws -> StoryRecord? {
        try await database.read { sql in
            try sql.first("\(Self.select) WHERE stories.id = ?", id.rawValue).map(Self.decode)
        }
    }

    /// How many ids one `IN (…)` list takes: SQLite refuses a statement with more than 32 766
    /// values, PostgreSQL more than 65 535; a user with many friends asks about more.
    static let listChunk = 500

    public func live(owners: [UserID], at now: Date) async throws -> [StoryRecord] {
        if owners.isEmpty { return [] }
        let found = try await database.read { sql in
            try stride(from: 0, to: owners.count, by: Self.listChunk).flatMap { start in
                let chunk = owners[start..<min(start + Self.listChunk, owners.count)]
                return try sql.query("""
                    \(Self.select) WHERE stories.owner_id IN (\(sqlPlaceholders(chunk.count))) AND stories.expires_at > ?
                    ORDER BY stories.created_at DESC
                    """, binding: chunk.map(\.rawValue.sqlValue) + [.integer(now.storageMillis)]).map(Self.decode)
            }
        }
        return owners.count <= Self.listChunk ? found : found.sorted { $0.createdAt > $1.createdAt }
    }

    public func recordView(_ story: StoryID, viewer: UserID, at: Date) async throws -> Bool {
        try await database.write { sql in
            let seen = try sql.first("SELECT viewer_id FROM story_views WHERE story_id = ? AND viewer_id = ?", story.rawValue, viewer.rawValue)
            if seen != nil { return false }
            try sql.execute("INSERT INTO story_views (story_id, viewer_id, viewed_at) VALUES (?, ?, ?)",
                            story.rawValue, viewer.rawValue, at.storageMillis)
            return true
        }
    }

    public func viewers(of story: StoryID) async throws -> [StoryView] {
        try await database.read { sql in
            try sql.query("SELECT viewer_id, viewed_at FROM story_views WHERE story_id = ? ORDER BY viewed_at DESC", story.rawValue)
                .map { row in
                    StoryView(viewerID: UserID(rawValue: try row.decode(column: "viewer_id", as: String.self)),
                              viewedAt: Date(storageMillis: try row.decode(column: "viewed_at", as: Int64.self)))
                }
        }
    }

    public func seen(by viewer: UserID, among stories: [StoryID]) async throws -> Set<StoryID> {
        if stories.isEmpty { return [] }
        return try await database.read { sql in
            Set(try stride(from: 0, to: stories.count, by: Self.listChunk).flatMap { start in
                let chunk = stories[start..<min(start + Self.listChunk, stories.count)]
                return try sql.query("""
                    SELECT story_id FROM story_views WHERE viewer_id = ? AND story_id IN (\(sqlPlaceholders(chunk.count)))
                    """, binding: [.text(viewer.rawValue)] + chunk.map(\.rawValue.sqlValue))
                    .map { StoryID(rawValue: try $0.decode(column: "story_id", as: String.self)) }
            })
        }
    }

    public func delete(_ story: StoryID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM stories WHERE id = ?", story.rawValue)
        }
    }

    public func removeExpired(before now: Date) async throws -> [AttachmentID] {
        try await database.write { sql in
            let gone = try sql.query("SELECT attachment_id FROM stories WHERE expires_at <= ?", now.storageMillis)
                .map { AttachmentID(rawValue: try $0.decode(column: "attachment_id", as: String.self)) }
            try sql.execute("DELETE FROM stories WHERE expires_at <= ?", now.storageMillis)
            return gone
        }
    }

    public func liveStories(showing attachment: AttachmentID, at now: Date) async throws -> [StoryRecord] {
        try await database.read { sql in
            try sql.query("\(Self.select) WHERE stories.attachment_id = ? AND stories.expires_at > ?",
                          attachment.rawValue, now.storageMillis).map(Self.decode)
        }
    }

    public func references(to attachment: AttachmentID) async throws -> Int {
        try await database.read { sql in
            try sql.scalar("SELECT COUNT(*) FROM stories WHERE attachment_id = ?", attachment.rawValue, as: Int.self) ?? 0
        }
    }
}

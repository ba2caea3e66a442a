import Foundation
import ParleyCore
import ParleyStorage
import SQLKit

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

    static let columns = ["id", "owner_id", "attachment_id", "title", "kind", "duration_ms", "created_at", "expires_at"]

    static func select(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        var select = sql.select()
        for column in columns { select = select.column(SQLColumn(column, table: "stories")) }
        return select.column(SQLRaw("(SELECT COUNT(*) FROM story_views v WHERE v.story_id = stories.id)"), as: "view_count")
            .from("stories")
    }

    static func decode(_ row: any SQLRow) throws -> StoryRecord {
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
        try await database.withConnection { sql in
            try await sql.insert(into: "stories").columns(Self.columns)
                .values(SQLBind(s.id.rawValue), SQLBind(s.ownerID.rawValue), SQLBind(s.attachmentID.rawValue), SQLBind(s.title),
                        SQLBind(s.kind), SQLBind(s.durationMs), SQLBind(s.createdAt.storageMillis), SQLBind(s.expiresAt.storageMillis))
                .run()
        }
    }

    public func story(id: StoryID) async throws -> StoryRecord? {
        try await database.withConnection { sql in
            try await Self.select(sql).where(SQLColumn("id", table: "stories"), .equal, SQLBind(id.rawValue)).first().map(Self.decode)
        }
    }

    public func live(owners: [UserID], at now: Date) async throws -> [StoryRecord] {
        if owners.isEmpty { return [] }
        return try await database.withConnection { sql in
            try await Self.select(sql)
                .where(SQLColumn("owner_id", table: "stories"), .in, SQLBind.group(owners.map(\.rawValue)))
                .where(SQLColumn("expires_at", table: "stories"), .greaterThan, SQLBind(now.storageMillis))
                .orderBy(SQLOrderBy(expression: SQLColumn("created_at", table: "stories"), direction: SQLDirection.descending))
                .all().map(Self.decode)
        }
    }

    public func recordView(_ story: StoryID, viewer: UserID, at: Date) async throws -> Bool {
        try await database.transaction { sql in
            let seen = try await sql.select().column("viewer_id").from("story_views")
                .where("story_id", .equal, story.rawValue).where("viewer_id", .equal, viewer.rawValue).first()
            if seen != nil { return false }
            try await sql.insert(into: "story_views").columns("story_id", "viewer_id", "viewed_at")
                .values(SQLBind(story.rawValue), SQLBind(viewer.rawValue), SQLBind(at.storageMillis)).run()
            return true
        }
    }

    public func viewers(of story: StoryID) async throws -> [StoryView] {
        try await database.withConnection { sql in
            try await sql.select().columns("viewer_id", "viewed_at").from("story_views").where("story_id", .equal, story.rawValue)
                .orderBy("viewed_at", .descending).all().map { row in
                    StoryView(viewerID: UserID(rawValue: try row.decode(column: "viewer_id", as: String.self)),
                              viewedAt: Date(storageMillis: try row.decode(column: "viewed_at", as: Int64.self)))
                }
        }
    }

    public func seen(by viewer: UserID, among stories: [StoryID]) async throws -> Set<StoryID> {
        if stories.isEmpty { return [] }
        return try await database.withConnection { sql in
            Set(try await sql.select().column("story_id").from("story_views").where("viewer_id", .equal, viewer.rawValue)
                .where("story_id", .in, stories.map(\.rawValue)).all(decodingColumn: "story_id", as: String.self)
                .map(StoryID.init(rawValue:)))
        }
    }

    public func delete(_ story: StoryID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "stories").where("id", .equal, story.rawValue).run()
        }
    }

    public func removeExpired(before now: Date) async throws -> [AttachmentID] {
        try await database.transaction { sql in
            let gone = try await sql.select().column("attachment_id").from("stories")
                .where("expires_at", .lessThanOrEqual, now.storageMillis).all(decodingColumn: "attachment_id", as: String.self)
            try await sql.delete(from: "stories").where("expires_at", .lessThanOrEqual, now.storageMillis).run()
            return gone.map(AttachmentID.init(rawValue:))
        }
    }

    public func liveStories(showing attachment: AttachmentID, at now: Date) async throws -> [StoryRecord] {
        try await database.withConnection { sql in
            try await Self.select(sql).where(SQLColumn("attachment_id", table: "stories"), .equal, SQLBind(attachment.rawValue))
                .where(SQLColumn("expires_at", table: "stories"), .greaterThan, SQLBind(now.storageMillis)).all().map(Self.decode)
        }
    }

    public func references(to attachment: AttachmentID) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM stories WHERE attachment_id = \(bind: attachment.rawValue)")
                .first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }
}

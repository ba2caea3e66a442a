import Foundation
import ParleyCore

/// A story as stored: an image or a short video that friends see for 24 hours.
public struct StoryRecord: Sendable, Equatable {
    public var id: StoryID
    public var ownerID: UserID
    public var attachmentID: AttachmentID
    public var title: String
    public var kind: String
    public var durationMs: Int?
    public var createdAt: Date
    public var expiresAt: Date
    public var viewCount: Int
}

public struct StoryView: Sendable, Equatable {
    public var viewerID: UserID
    public var viewedAt: Date
}

public enum StoryErrors {
    public static let notFound = ParleyError(.notFound, code: "story_not_found", "No such story")
    public static let invalidTitle = ParleyError.rule("invalid_title", "A story title is 1 to \(StoryRules.maxTitleLength) characters")
    public static let videoTooLong = ParleyError.rule("video_too_long", "Story videos are shorter than \(StoryRules.maxVideoMs / 1000) seconds")
    public static let unsupportedKind = ParleyError.rule("unsupported_story_kind", "A story is an image or a video")
    public static let attachmentNotFound = ParleyError(.notFound, code: "attachment_not_found", "No such attachment")
}

public enum StoryRules {
    public static let maxTitleLength = 100
    /// Videos must be under a minute.
    public static let maxVideoMs = 60_000
    public static let lifetime: TimeInterval = 24 * 3600
    /// Live stories per user by default (`limits.storiesPerDay`), as Instagram allows.
    public static let storiesPerDay = 100
}

import Foundation
import Logging
import ParleyChat
import ParleyCore
import ParleyProtocol
import ParleyFriends

/// 24-hour stories: friends see them, the owner sees who did.
public final class StoryService: Sendable {
    let store: any StoryStore
    let friends: FriendService
    let chat: ChatService
    let events: any EventPublisher
    let clock: any WallClock
    let logger: Logger
    /// Stories one user may have live at once (`limits.storiesPerDay`: a story lives a day). Each
    /// post tells every friend and joins every friend's feed.
    let storiesPerDay: Int

    public init(store: any StoryStore, friends: FriendService, chat: ChatService, events: any EventPublisher,
                clock: any WallClock, storiesPerDay: Int = StoryRules.storiesPerDay, logger: Logger) {
        self.storiesPerDay = max(storiesPerDay, 1)
        self.store = store
        self.friends = friends
        self.chat = chat
        self.events = events
        self.clock = clock
        self.logger = logger
    }

    /// Posts an uploaded image, or a video under a minute, for 24 hours; friends are told.
    public func post(_ owner: UserID, attachment id: AttachmentID, title: String) async throws -> StoryRecord {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= StoryRules.maxTitleLength else { throw StoryErrors.invalidTitle }
        guard let attachment = try await chat.attachment(id), attachment.uploaderID == owner else { throw StoryErrors.attachmentNotFound }
        switch attachment.kind {
        case "image": break
        case "video":
            guard let duration = attachment.durationMs, duration < StoryRules.maxVideoMs else { throw StoryErrors.videoTooLong }
        default: throw StoryErrors.unsupportedKind
        }
        let now = clock.now()
        // A soft bound (two posts at the same instant may both pass): the oldest live story's
        // expiry is when the next may go up.
        let live = try await store.live(owners: [owner], at: now)
        if live.count >= storiesPerDay, let oldest = live.map(\.expiresAt).min() {
            throw ParleyError.rateLimited(retryAfter: max(1, Int(oldest.timeIntervalSince(now).rounded(.up))))
        }
        let story = StoryRecord(id: .generate(), ownerID: owner, attachmentID: id, title: title, kind: attachment.kind,
                                durationMs: attachment.kind == "video" ? attachment.durationMs : nil,
                                createdAt: now, expiresAt: now.addingTimeInterval(StoryRules.lifetime), viewCount: 0)
        try await store.insert(story)
        let audience = try await friends.friends(of: owner).map(\.friend)
        await events.publish(.storyNew(StoryEvent(storyId: story.id.rawValue, ownerId: owner.rawValue)), to: audience)
        return story
    }

    /// Friends' unexpired stories, by friend, newest first; with what the viewer has seen.
    public func feed(_ viewer: UserID) async throws -> [(owner: UserID, stories: [StoryRecord], seen: Set<StoryID>)] {
        let owners = try await friends.friends(of: viewer).map(\.friend)
        let stories = try await store.live(owners: owners, at: clock.now())
        let seen = try await store.seen(by: viewer, among: stories.map(\.id))
        var order: [UserID] = []
        var byOwner: [UserID: [StoryRecord]] = [:]
        for story in stories {
            if byOwner[story.ownerID] == nil { order.append(story.ownerID) }
            byOwner[story.ownerID, default: []].append(story)
        }
        return order.map { ($0, byOwner[$0] ?? [], seen) }
    }

    public func mine(_ owner: UserID) async throws -> [StoryRecord] {
        try await store.live(owners: [owner], at: clock.now())
    }

    /// Counts a view once per viewer; only friends of the owner (and the owner, uncounted).
    public func view(_ viewer: UserID, _ id: StoryID) async throws {
        let story = try await visibleStory(id, to: viewer)
        if story.ownerID == viewer { return }
        _ = try await store.recordView(id, viewer: viewer, at: clock.now())
    }

    public func viewers(_ owner: UserID, _ id: StoryID) async throws -> [StoryView] {
        guard let story = try await store.story(id: id), story.ownerID == owner else { throw StoryErrors.notFound }
        return try await store.viewers(of: id)
    }

    public func delete(_ owner: UserID, _ id: StoryID) async throws {
        guard let story = try await store.story(id: id), story.ownerID == owner else { throw StoryErrors.notFound }
        try await store.delete(id)
        try await chat.removeAttachmentIfUnused(story.attachmentID, stillUsed: { try await self.store.references(to: $0) > 0 })
    }

    /// The story, if it is live and `viewer` may see it: its owner, or a friend of its owner.
    func visibleStory(_ id: StoryID, to viewer: UserID) async throws -> StoryRecord {
        guard let story = try await store.story(id: id), story.expiresAt > clock.now() else { throw StoryErrors.notFound }
        if story.ownerID != viewer, try await friends.reach(from: viewer, to: story.ownerID) != .friends {
            throw StoryErrors.notFound
        }
        return story
    }

    /// Whether `viewer` may fetch an attachment because a live story they may see shows it.
    public func mayFetch(_ attachment: AttachmentID, viewer: UserID) async throws -> Bool {
        for story in try await store.liveStories(showing: attachment, at: clock.now()) {
            if story.ownerID == viewer { return true }
            if try await friends.reach(from: viewer, to: story.ownerID) == .friends { return true }
        }
        return false
    }

    /// Deletes expired stories and the files nothing else uses. Run periodically.
    public func sweep() async throws -> Int {
        let gone = try await store.removeExpired(before: clock.now())
        for attachment in gone {
            try await chat.removeAttachmentIfUnused(attachment, stillUsed: { try await self.store.references(to: $0) > 0 })
        }
        if !gone.isEmpty { logger.info("expired stories removed", metadata: ["count": "\(gone.count)"]) }
        return gone.count
    }
}


import CoreMetrics
import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyFiles
import ParleyFriends

/// Dialogs, messages, receipts and typing. Friends decides who may talk privately; members of a
/// group talk to the group.
public final class ChatService: Sendable {
    let store: any ChatStore
    let friends: FriendService
    let events: any EventPublisher
    let files: FileStore
    let clock: any WallClock
    let settings: ChatSettings
    let logger: Logger
    /// Messages each user may send per minute (`limits.messagesPerMinute`).
    let messageLimit: RateLimiter
    /// Message requests each user may open per hour (`limits.messageRequestsPerHour`).
    let requestLimit: any RateCounter
    /// Group changes per user (``ChatSettings/groupChangesPerHour``); leaving is never refused.
    let groupChangeLimit: any RateCounter
    /// Send to acknowledgement (the message committed), per message.
    let acknowledged: CoreMetrics.Timer
    /// Uploads under way and the room in their uploaders' quotas they hold.
    let uploads = UploadReservations()

    public init(store: any ChatStore, friends: FriendService, events: any EventPublisher, files: FileStore,
                clock: any WallClock, settings: ChatSettings, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
                counters: RateCounters = RateLimiter.inMemory, logger: Logger) {
        self.acknowledged = CoreMetrics.Timer(label: "parley_message_ack_seconds", factory: metrics)
        self.store = store
        self.friends = friends
        self.events = events
        self.files = files
        self.clock = clock
        self.settings = settings
        self.logger = logger
        self.messageLimit = RateLimiter(limit: max(settings.messagesPerMinute, 1), window: 60)
        self.requestLimit = counters("message_requests", max(settings.messageRequestsPerHour, 1), 3600)
        self.groupChangeLimit = counters("group_changes", max(settings.groupChangesPerHour, 1), 3600)
    }

    // MARK: Dialogs

    /// The pair's private dialog, created on first use: between friends, between two whose
    /// message request stands, or to a stranger who takes messages from everyone (the first
    /// message then waits as a request). Never across a block.
    public func openPrivateDialog(_ user: UserID, with other: UserID) async throws -> DialogRecord {
        if user == other { throw FriendErrors.yourself }
        let key = Self.pairKey(user, other)
        let found = try await store.privateDialog(pairKey: key)
        switch try await friends.reach(from: user, to: other) {
        case .friends: break
        case .blocked: throw FriendErrors.blocked
        case .notFriends:
            var standing = false
            if let found { standing = try await store.messageRequest(dialog: found.id) != nil }
            if !standing, try await friends.privacy(of: other).messagesFrom != .everyone { throw FriendErrors.friendshipRequired }
        }
        if let existing = found {
            try await store.unhide(existing.id, for: user)
            return existing
        }
        let now = clock.now()
        let dialog = DialogRecord(id: .generate(), type: .private, name: nil, avatarAttachmentID: nil, createdBy: user,
                                  createdAt: now, updatedAt: now, lastMessageSeq: 0)
        do {
            try await store.createDialog(dialog, pairKey: key, members: [user, other])
        } catch {
            // Both opened it at once: the other insert won.
            if let existing = try await store.privateDialog(pairKey: key) { return existing }
            throw error
        }
        return dialog
    }

    /// A group of the creator and some of their friends.
    public func createGroup(_ user: UserID, name: String, memberIDs: [UserID]) async throws -> DialogRecord {
        let name = try Self.groupName(name)
        let others = Array(Set(memberIDs).subtracting([user]))
        guard others.count + 1 <= ChatRules.maxGroupMembers else { throw ChatErrors.tooManyMembers }
        try await requireFriends(of: user, others)
        let now = clock.now()
        try await groupChangeLimit.admitting(user.rawValue, now: now)
        let dialog = DialogRecord(id: .generate(), type: .group, name: name, avatarAttachmentID: nil, createdBy: user, ownerID: user,
                                  createdAt: now, updatedAt: now, lastMessageSeq: 0)
        try await store.createDialog(dialog, pairKey: nil, members: [user] + others)
        await announce(dialog.id)
        return dialog
    }

    public func updateGroup(_ user: UserID, _ id: DialogID, name: String?, avatar: AttachmentID?) async throws -> DialogRecord {
        let dialog = try await memberDialog(user, id)
        guard dialog.type == .group else { throw ChatErrors.notAGroup }
        let name = try name.map(Self.groupName)
        if let avatar {
            guard let attachment = try await store.attachment(id: avatar), attachment.uploaderID == user, attachment.kind == "image" else {
                throw ChatErrors.attachmentNotFound
            }
        }
        try await groupChangeLimit.admitting(user.rawValue, now: clock.now())
        try await store.updateDialog(id: id, name: name, avatar: avatar, at: clock.now())
        await announce(id)
        return try await memberDialog(user, id)
    }

    /// Adds friends of the adder to a group.
    public func addMembers(_ user: UserID, _ id: DialogID, _ newMembers: [UserID]) async throws -> DialogRecord {
        let dialog = try await memberDialog(user, id)
        guard dialog.type == .group else { throw ChatErrors.notAGroup }
        let current = Set(try await store.members(of: id).map(\.userID))
        let added = Array(Set(newMembers).subtracting(current))
        guard current.count + added.count <= ChatRules.maxGroupMembers else { throw ChatErrors.tooManyMembers }
        try await requireFriends(of: user, added)
        try await groupChangeLimit.admitting(user.rawValue, now: clock.now())
        try await store.addMembers(added, to: id, at: clock.now())
        await announce(id)
        return try await memberDialog(user, id)
    }

    /// Leaves a group. An owner who leaves hands the group to whoever has been in it longest; the
    /// last one out takes the group with them.
    public func leave(_ user: UserID, _ id: DialogID) async throws {
        let dialog = try await memberDialog(user, id)
        guard dialog.type == .group else { throw ChatErrors.notAGroup }
        _ = try await store.removeMember(user, from: id)
        await announce(id, also: [user])
    }

    /// The owner takes someone out of the group: they lose its history and its attachments, and
    /// hear of it with `dialog.updated` (as the rest do). Removing oneself is leaving.
    public func removeMember(_ user: UserID, _ id: DialogID, _ member: UserID) async throws {
        if member == user { return try await leave(user, id) }
        let dialog = try await memberDialog(user, id)
        guard dialog.type == .group else { throw ChatErrors.notAGroup }
        guard dialog.ownerID == user else { throw ChatErrors.notGroupOwner }
        try await groupChangeLimit.admitting(user.rawValue, now: clock.now())
        guard try await store.removeMember(member, from: id) != .notAMember else { throw ChatErrors.memberNotFound }
        await announce(id, also: [member])
    }

    /// The owner deletes the group for everyone: its members, messages and history go, and every
    /// member's devices get `dialog.deleted`.
    public func deleteForEveryone(_ user: UserID, _ id: DialogID) async throws {
        let dialog = try await memberDialog(user, id)
        guard dialog.type == .group else { throw ChatErrors.notAGroup }
        guard dialog.ownerID == user else { throw ChatErrors.notGroupOwner }
        let members = try await store.members(of: id).map(\.userID)
        try await store.deleteDialog(id)
        await events.publish(.dialogDeleted(DialogRefEvent(dialogId: id.rawValue)), to: members)
        logger.info("group deleted for everyone", metadata: ["dialog": "\(id)", "owner": "\(user)"])
    }

    /// Deletes the conversation for the caller only: it disappears from their list with its
    /// history, and comes back (with only newer messages) when someone writes again.
    public func deleteForMe(_ user: UserID, _ id: DialogID) async throws {
        _ = try await memberDialog(user, id)
        try await store.clear(id, for: user)
    }

    public func dialogs(of user: UserID, cursor: DialogCursor?, limit: Int) async throws -> (dialogs: [DialogSummary], next: DialogCursor?) {
        let limit = min(max(limit, 1), 100)
        let rows = try await store.dialogs(of: user, after: cursor, limit: limit + 1)
        var summaries: [DialogSummary] = []
        for (dialog, membership) in rows.prefix(limit) {
            summaries.append(try await summary(dialog, membership))
        }
        let next = rows.count > limit ? rows.prefix(limit).last.map { DialogCursor(updatedAt: $0.0.updatedAt.storageMillis, id: $0.0.id) } : nil
        return (summaries, next)
    }

    /// Everyone who shares a conversation with `user` (for live profile changes).
    public func chatPartners(of user: UserID) async throws -> Set<UserID> {
        try await store.chatPartners(of: user)
    }

    /// The app icon's badge: how many dialogs have unread messages (in groups, not counting those
    /// of people the user blocked).
    public func unreadDialogCount(of user: UserID) async throws -> Int {
        try await store.unreadDialogCount(of: user, ignoringInGroups: Set(try await friends.blocks(by: user).map(\.blocked)))
    }

    public func dialog(_ user: UserID, _ id: DialogID) async throws -> DialogSummary {
        let dialog = try await memberDialog(user, id)
        guard let membership = try await store.membership(user, in: id) else { throw ChatErrors.dialogNotFound }
        return try await summary(dialog, membership)
    }

    /// In a group, the messages of people the member blocked are not theirs to see (as in
    /// `history`): neither counted unread nor shown as the last message.
    func summary(_ dialog: DialogRecord, _ membership: Membership) async throws -> DialogSummary {
        let members = try await store.members(of: dialog.id)
        var blocked = dialog.type == .group ? Set(try await friends.blocks(by: membership.userID).map(\.blocked)) : []
        // Each is a value in the statements below, which SQLite caps at 32 766: past a thousand,
        // those still in the group (a former member's old messages then count and show).
        if blocked.count > 1000 { blocked.formIntersection(members.map(\.userID)) }
        // One statement: a blocked member's thousands of messages are passed over by the
        // database, not fetched page by page.
        let last = try await store.lastMessage(in: dialog.id, after: membership.clearedSeq, excluding: blocked)
        var lastView: MessageView?
        if let last { lastView = try await views([last], members: members).first }
        return DialogSummary(dialog: dialog, memberIDs: members.map(\.userID), lastMessage: lastView,
                             unreadCount: try await store.unreadCount(dialog.id, for: membership, ignoring: blocked))
    }

    /// The dialog, if `user` is in it; otherwise it does not exist for them.
    func memberDialog(_ user: UserID, _ id: DialogID) async throws -> DialogRecord {
        guard try await store.membership(user, in: id) != nil, let dialog = try await store.dialog(id: id) else {
            throw ChatErrors.dialogNotFound
        }
        return dialog
    }

    func requireFriends(of user: UserID, _ others: [UserID]) async throws {
        for other in others where try await friends.reach(from: user, to: other) != .friends {
            throw ChatErrors.notAFriend
        }
    }

    /// `dialog.updated` to everyone in it (and to whoever just left).
    func announce(_ id: DialogID, also extra: [UserID] = []) async {
        guard let dialog = try? await store.dialog(id: id), let members = try? await store.members(of: id) else { return }
        let ids = members.map(\.userID)
        await events.publish(.dialogUpdated(DialogEvent(dialog, members: ids, publicBaseURL: settings.publicBaseURL)),
                             to: ids + extra)
    }

    static func pairKey(_ a: UserID, _ b: UserID) -> String {
        a.rawValue < b.rawValue ? "\(a.rawValue):\(b.rawValue)" : "\(b.rawValue):\(a.rawValue)"
    }

    static func groupName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= ChatRules.maxNameLength else { throw ChatErrors.invalidGroupName }
        return trimmed
    }
}

extension DialogEvent {
    init(_ dialog: DialogRecord, members: [UserID], publicBaseURL: String) {
        self.init(dialog: Dialog(
            id: dialog.id.rawValue, type: dialog.type, name: dialog.name,
            avatarUrl: dialog.avatarAttachmentID.map { "\(publicBaseURL)/v1/attachments/\($0.rawValue)" },
            memberIds: members.map(\.rawValue), ownerId: dialog.ownerID?.rawValue, updatedAt: WireTime.string(dialog.updatedAt)))
    }
}

import Foundation
import Logging
import ParleyAccounts
import ParleyChat
import ParleyCore
import ParleyFriends
import ParleyProtocol
import ParleyRealtime

/// What a viewer may see of someone's presence.
public struct PresenceView: Sendable, Equatable {
    /// Whether any of their devices has the realtime socket open.
    public let online: Bool
    /// When their last connection closed; nil if none ever did.
    public let lastSeen: Date?
}

/// Presence and live profiles: a user is online while any of their devices holds a realtime
/// socket; when the last one closes they were last seen then. Coming online, going offline and a
/// new name, status or picture reach their friends and the members of the chats they share at
/// once, as `user.updated` — with `online` and `lastSeen` only for those the user's privacy
/// (`presenceVisibleTo`) lets see them, and never across a block.
///
/// Online is what this node's event hub holds, or what another node says it holds (the event
/// log's ``NodeBus``: nothing on one node, LISTEN/NOTIFY between nodes on PostgreSQL).
public final class PresenceService: Sendable {
    let accounts: AccountService
    let friends: FriendService
    let chat: ChatService
    let events: EventLog
    let publicBaseURL: String
    let logger: Logger

    public init(accounts: AccountService, friends: FriendService, chat: ChatService, events: EventLog, publicBaseURL: String,
                logger: Logger) {
        self.accounts = accounts
        self.friends = friends
        self.chat = chat
        self.events = events
        self.publicBaseURL = publicBaseURL
        self.logger = logger
    }

    public func isOnline(_ user: UserID) -> Bool { events.hub.isOnline(user) || events.nodes.isOnlineElsewhere(user) }

    /// The presence of each of `users` that `viewer` may see (`relationships`: how the viewer
    /// stands to each); the hidden ones are left out.
    public func presence(of users: [UserRecord], to viewer: UserID, relationships: [UserID: Relationship]) async throws
        -> [UserID: PresenceView]
    {
        if users.isEmpty { return [:] }
        let privacy = try await friends.privacy(of: users.map(\.id))
        var visible: [UserID: PresenceView] = [:]
        for user in users {
            let settings = privacy[user.id] ?? .standard
            guard settings.showsPresence(to: relationships[user.id] ?? .none, isSelf: user.id == viewer) else { continue }
            visible[user.id] = PresenceView(online: isOnline(user.id), lastSeen: user.lastSeenAt)
        }
        return visible
    }

    /// A device opened the socket: the user's first one brings them online.
    public func connected(_ user: UserID) async {
        guard events.hub.connectionCount(of: user) == 1 else { return }
        events.nodes.presenceChanged(user, online: true)
        guard !events.nodes.isOnlineElsewhere(user) else { return }
        await announce(user, toOwnDevices: false)
    }

    /// A socket closed: when it was the user's last, they were last seen now.
    /// With several nodes, after a moment for the others' word: when two nodes each lose the
    /// user's last socket at once, both may say so (the same event twice, never none).
    public func disconnected(_ user: UserID) async {
        guard !events.hub.isOnline(user) else { return }
        events.nodes.presenceChanged(user, online: false)
        let settle = events.nodes.settleTime
        if settle > .zero { try? await Task.sleep(for: settle) }
        guard !isOnline(user) else { return }
        do { try await accounts.markSeen(id: user) } catch {
            logger.warning("last seen not recorded", metadata: ["user": "\(user)", "error": "\(error)"])
        }
        await announce(user, toOwnDevices: false)
    }

    /// The user changed their name, status or picture: told to everyone who shows it, their own
    /// other devices included.
    public func profileChanged(_ user: UserID) async {
        await announce(user, toOwnDevices: true)
    }

    func announce(_ user: UserID, toOwnDevices: Bool) async {
        do {
            let record = try await accounts.user(id: user)
            let friendIDs = Set(try await friends.friends(of: user).map(\.friend))
            var audience = friendIDs.union(try await chat.chatPartners(of: user))
            audience.subtract(try await friends.blocks(by: user).map(\.blocked))
            audience.subtract(try await friends.blockers(of: user))
            audience.remove(user)
            let settings = try await friends.privacy(of: user)
            var shown: [UserID] = toOwnDevices ? [user] : [], hidden: [UserID] = []
            for other in audience.sorted(by: { $0.rawValue < $1.rawValue }) {
                if settings.showsPresence(to: friendIDs.contains(other) ? .friend : .none, isSelf: false) {
                    shown.append(other)
                } else {
                    hidden.append(other)
                }
            }
            let presence = PresenceView(online: isOnline(user), lastSeen: record.lastSeenAt)
            if !shown.isEmpty { await events.publish(.userUpdated(event(record, presence)), to: shown) }
            if !hidden.isEmpty { await events.publish(.userUpdated(event(record, nil)), to: hidden) }
        } catch {
            logger.warning("user.updated not sent", metadata: ["user": "\(user)", "error": "\(error)"])
        }
    }

    func event(_ user: UserRecord, _ presence: PresenceView?) -> UserUpdatedEvent {
        UserUpdatedEvent(user: .init(
            id: user.id.rawValue, name: user.name, status: user.status,
            avatarUrl: user.avatarHash.map { "\(publicBaseURL)/v1/avatars/\($0)" },
            online: presence?.online, lastSeen: presence?.lastSeen.map(WireTime.string)))
    }
}

import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore
import ParleyPresence

/// `user` as API.md shows it: e-mail and phone number only to their owner.
struct UserBody: ResponseEncodable {
    let id: String
    let name: String
    let email: String?
    let phoneNumber: String?
    let status: String
    let avatarUrl: String?
    let createdAt: String
    let relationship: Relationship
    /// Only when the user's privacy lets the viewer see it (`presenceVisibleTo`).
    let online: Bool?
    let lastSeen: String?
}

/// Turns user records into what a given viewer may see of them.
struct UserPresenter: Sendable {
    let publicBaseURL: String
    let relationships: any RelationshipDirectory
    /// Online and last seen, as each user's privacy lets the viewer see them; none when nil.
    var presence: PresenceService? = nil

    /// `blockedViewer`: `user` blocked the viewer, who then sees neither their picture nor their
    /// status (in members, story viewers, call history), and is not told why.
    func body(_ user: UserRecord, viewer: UserID?, relationship: Relationship = .none, blockedViewer: Bool = false,
              presence: PresenceView? = nil) -> UserBody {
        UserBody(
            id: user.id.rawValue, name: user.name, email: viewer == user.id ? user.email : nil,
            phoneNumber: viewer == user.id ? user.phoneNumber : nil, status: blockedViewer ? "" : user.status,
            avatarUrl: blockedViewer ? nil : user.avatarHash.map { "\(publicBaseURL)/v1/avatars/\($0)" },
            createdAt: WireTime.string(user.createdAt), relationship: relationship,
            online: presence?.online, lastSeen: presence?.lastSeen.map(WireTime.string))
    }

    /// The user as they see themself, presence included.
    func own(_ user: UserRecord) async throws -> UserBody {
        try await present([user], to: user.id)[0]
    }

    /// Each user's presence that `viewer` may see.
    func presence(of users: [UserRecord], to viewer: UserID, relationships: [UserID: Relationship]) async throws -> [UserID: PresenceView] {
        guard let presence else { return [:] }
        return try await presence.presence(of: users, to: viewer, relationships: relationships)
    }

    /// One user as `viewer` sees them, relationship included.
    func present(_ user: UserRecord, to viewer: UserID) async throws -> UserBody {
        try await present([user], to: viewer)[0]
    }

    func present(_ users: [UserRecord], to viewer: UserID) async throws -> [UserBody] {
        let others = users.map(\.id).filter { $0 != viewer }
        let map = try await relationships.relationships(of: viewer, to: others)
        let blockers = others.isEmpty ? [] : try await relationships.blockers(of: viewer)
        let seen = try await presence(of: users.filter { !blockers.contains($0.id) }, to: viewer, relationships: map)
        return users.map {
            body($0, viewer: viewer, relationship: map[$0.id] ?? .none, blockedViewer: blockers.contains($0.id), presence: seen[$0.id])
        }
    }
}

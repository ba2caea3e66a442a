import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore

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
}

/// Turns user records into what a given viewer may see of them.
struct UserPresenter: Sendable {
    let publicBaseURL: String
    let relationships: any RelationshipDirectory

    /// `blockedViewer`: `user` blocked the viewer, who then sees neither their picture nor their
    /// status (in members, story viewers, call history), and is not told why.
    func body(_ user: UserRecord, viewer: UserID?, relationship: Relationship = .none, blockedViewer: Bool = false) -> UserBody {
        UserBody(
            id: user.id.rawValue, name: user.name, email: viewer == user.id ? user.email : nil,
            phoneNumber: viewer == user.id ? user.phoneNumber : nil, status: blockedViewer ? "" : user.status,
            avatarUrl: blockedViewer ? nil : user.avatarHash.map { "\(publicBaseURL)/v1/avatars/\($0)" },
            createdAt: WireTime.string(user.createdAt), relationship: relationship)
    }

    /// One user as `viewer` sees them, relationship included.
    func present(_ user: UserRecord, to viewer: UserID) async throws -> UserBody {
        try await present([user], to: viewer)[0]
    }

    func present(_ users: [UserRecord], to viewer: UserID) async throws -> [UserBody] {
        let others = users.map(\.id).filter { $0 != viewer }
        let map = try await relationships.relationships(of: viewer, to: others)
        let blockers = others.isEmpty ? [] : try await relationships.blockers(of: viewer)
        return users.map { body($0, viewer: viewer, relationship: map[$0.id] ?? .none, blockedViewer: blockers.contains($0.id)) }
    }
}

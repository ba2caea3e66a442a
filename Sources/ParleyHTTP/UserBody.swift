import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore

/// `user` as API.md shows it: e-mail only to its owner.
struct UserBody: ResponseEncodable {
    let id: String
    let name: String
    let email: String?
    let status: String
    let avatarUrl: String?
    let createdAt: String
    let relationship: Relationship
}

/// Turns user records into what a given viewer may see of them.
struct UserPresenter: Sendable {
    let publicBaseURL: String
    let relationships: any RelationshipDirectory

    func body(_ user: UserRecord, viewer: UserID?, relationship: Relationship = .none) -> UserBody {
        UserBody(
            id: user.id.rawValue, name: user.name, email: viewer == user.id ? user.email : nil, status: user.status,
            avatarUrl: user.avatarHash.map { "\(publicBaseURL)/v1/avatars/\($0)" },
            createdAt: WireTime.string(user.createdAt), relationship: relationship)
    }

    /// One user as `viewer` sees them, relationship included.
    func present(_ user: UserRecord, to viewer: UserID) async throws -> UserBody {
        if user.id == viewer { return body(user, viewer: viewer) }
        let relationship = try await relationships.relationships(of: viewer, to: [user.id])[user.id] ?? .none
        return body(user, viewer: viewer, relationship: relationship)
    }

    func present(_ users: [UserRecord], to viewer: UserID) async throws -> [UserBody] {
        let map = try await relationships.relationships(of: viewer, to: users.map(\.id).filter { $0 != viewer })
        return users.map { body($0, viewer: viewer, relationship: map[$0.id] ?? .none) }
    }
}

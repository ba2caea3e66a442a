import Foundation
import ParleyCore

/// What Friends needs from storage. Every mutation that touches two facts (a request and a
/// friendship, a block and what it ends) happens in one transaction.
public protocol FriendStore: Sendable {
    func userExists(_ id: UserID) async throws -> Bool
    func request(id: FriendRequestID) async throws -> FriendRequest?
    /// The pending request from `from` to `to`, if any.
    func request(from: UserID, to: UserID) async throws -> FriendRequest?
    func requests(of user: UserID, direction: RequestDirection) async throws -> [FriendRequest]
    /// Decides and records a new request in one transaction: refused when blocked either way,
    /// already friends or already asked; turned into a friendship when the other had asked.
    func placeRequest(_ request: FriendRequest) async throws -> PlacedRequest
    func deleteRequest(id: FriendRequestID) async throws
    /// Deletes every request between the two (both directions) and records the friendship.
    func befriend(_ a: UserID, _ b: UserID, at: Date) async throws -> Friendship
    func friendship(_ a: UserID, _ b: UserID) async throws -> Friendship?
    func friends(of user: UserID) async throws -> [Friendship]
    /// Returns whether there was a friendship to remove.
    func unfriend(_ a: UserID, _ b: UserID) async throws -> Bool
    /// Records the block and ends friendship and requests both ways. Returns whether they were friends.
    func block(blocker: UserID, blocked: UserID, at: Date) async throws -> Bool
    func unblock(blocker: UserID, blocked: UserID) async throws
    func isBlocked(blocker: UserID, blocked: UserID) async throws -> Bool
    func blocks(by blocker: UserID) async throws -> [Block]
    func blockers(of user: UserID) async throws -> Set<UserID>
    /// How `viewer` stands to each of `others`, in one go (for lists and search results).
    func relationships(of viewer: UserID, to others: [UserID]) async throws -> [UserID: Relationship]
    /// The settings of those of `users` who chose any (the rest have the defaults).
    func privacy(of users: [UserID]) async throws -> [UserID: PrivacySettings]
    func setPrivacy(_ settings: PrivacySettings, of user: UserID) async throws
}

/// What `placeRequest` did.
public enum PlacedRequest: Sendable, Equatable {
    case inserted(FriendRequest)
    case befriended(Friendship)
    case blocked, alreadyFriends, alreadyRequested
}

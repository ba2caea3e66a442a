import Foundation
import ParleyCore

/// A pending request from one user to another.
public struct FriendRequest: Sendable, Equatable {
    public let id: FriendRequestID
    public let from: UserID
    public let to: UserID
    public let createdAt: Date

    public init(id: FriendRequestID, from: UserID, to: UserID, createdAt: Date) {
        self.id = id
        self.from = from
        self.to = to
        self.createdAt = createdAt
    }
}

/// A friendship as one side sees it.
public struct Friendship: Sendable, Equatable {
    public let friend: UserID
    public let since: Date

    public init(friend: UserID, since: Date) {
        self.friend = friend
        self.since = since
    }
}

/// A block as the blocker sees it.
public struct Block: Sendable, Equatable {
    public let blocked: UserID
    public let since: Date

    public init(blocked: UserID, since: Date) {
        self.blocked = blocked
        self.since = since
    }
}

/// The answer to "may A reach B?" — the one question chat, calls, stories and attachments ask.
/// A sender's standing for one message: who does not get it (they blocked the sender), and
/// the reach to the other member of a private dialog (nil for a group).
public struct SenderStanding: Sendable, Equatable {
    public var blockers: Set<UserID>
    public var reach: Reach?

    public init(blockers: Set<UserID>, reach: Reach?) {
        self.blockers = blockers
        self.reach = reach
    }
}

public enum Reach: Sendable, Equatable {
    /// Friends, and neither has blocked the other: messages, calls and stories flow.
    case friends
    /// Not friends (strangers, or a request still pending).
    case notFriends
    /// One of them has blocked the other.
    case blocked
}

/// What sending a request did.
public enum RequestOutcome: Sendable, Equatable {
    case requested(FriendRequest)
    /// They had already asked you, so you are friends now.
    case becameFriends(Friendship)
}

public enum RequestDirection: String, Sendable {
    case incoming, outgoing
}

/// The stable codes Friends answers with.
public enum FriendErrors {
    public static let yourself = ParleyError.rule("cannot_befriend_yourself", "You cannot send a friend request to yourself")
    public static let alreadyFriends = ParleyError(.conflict, code: "already_friends", "You are already friends")
    public static let alreadyRequested = ParleyError(.conflict, code: "request_already_sent", "You have already asked this person")
    public static let blocked = ParleyError(.forbidden, code: "blocked", "This action is not possible")
    public static let userNotFound = ParleyError(.notFound, code: "user_not_found", "No such user")
    public static let requestNotFound = ParleyError(.notFound, code: "request_not_found", "No such friend request")
    public static let notReceiver = ParleyError(.forbidden, code: "not_receiver", "Only the person who was asked can answer a request")
    public static let notSender = ParleyError(.forbidden, code: "not_sender", "Only the person who asked can cancel a request")
    public static let notFriends = ParleyError(.notFound, code: "not_friends", "You are not friends")
    public static let friendshipRequired = ParleyError(.forbidden, code: "friendship_required", "Only friends can do this")
    public static let blockYourself = ParleyError.rule("cannot_block_yourself", "You cannot block yourself")
}

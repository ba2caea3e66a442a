import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import Synchronization

/// Requests, friendships and blocks: the one place that decides who may reach whom.
public final class FriendService: RelationshipDirectory, Sendable {
    let store: any FriendStore
    let events: any EventPublisher
    let clock: any WallClock
    let logger: Logger
    /// Friend requests each user may send per hour (`limits.friendRequestsPerHour`).
    let requestLimit: any RateCounter
    /// Told of every new block (calls end a call between the two at once).
    private let blockObservers = Mutex<[@Sendable (_ blocker: UserID, _ blocked: UserID) async -> Void]>([])

    public init(store: any FriendStore, events: any EventPublisher, clock: any WallClock, requestsPerHour: Int = 100,
                counters: RateCounters = RateLimiter.inMemory, logger: Logger) {
        self.requestLimit = counters("friend_requests", max(requestsPerHour, 1), 3600)
        self.store = store
        self.events = events
        self.clock = clock
        self.logger = logger
    }

    // MARK: Reach

    /// May `a` reach `b` (message, call, see stories)? Blocks in either direction win.
    public func reach(from a: UserID, to b: UserID) async throws -> Reach {
        if a == b { return .friends }
        if try await store.isBlocked(blocker: a, blocked: b) { return .blocked }
        if try await store.isBlocked(blocker: b, blocked: a) { return .blocked }
        return try await store.friendship(a, b) != nil ? .friends : .notFriends
    }

    /// Throws `blocked` or `friendship_required` unless `a` may reach `b`.
    public func requireFriendship(from a: UserID, to b: UserID) async throws {
        switch try await reach(from: a, to: b) {
        case .friends: return
        case .notFriends: throw FriendErrors.friendshipRequired
        case .blocked: throw FriendErrors.blocked
        }
    }

    // MARK: Requests

    /// Asks `target` to be friends; if they had already asked, the two become friends at once.
    public func sendRequest(from sender: UserID, to target: UserID) async throws -> RequestOutcome {
        guard sender != target else { throw FriendErrors.yourself }
        try await requestLimit.admitting(sender.rawValue, now: clock.now())
        guard try await store.userExists(target) else { throw FriendErrors.userNotFound }
        let request = FriendRequest(id: .generate(), from: sender, to: target, createdAt: clock.now())
        switch try await store.placeRequest(request) {
        case .blocked: throw FriendErrors.blocked
        case .alreadyFriends: throw FriendErrors.alreadyFriends
        case .alreadyRequested: throw FriendErrors.alreadyRequested
        case .befriended(let friendship):
            await announceFriendship(sender, target)
            return .becameFriends(friendship)
        case .inserted(let request):
            await events.publish(.friendRequest(FriendRequestEvent(request)), to: [target])
            return .requested(request)
        }
    }

    /// The receiver says yes.
    public func accept(_ id: FriendRequestID, by user: UserID) async throws -> Friendship {
        let request = try await pendingRequest(id, involving: user)
        guard request.to == user else { throw FriendErrors.notReceiver }
        let friendship = try await store.befriend(request.from, request.to, at: clock.now())
        await announceFriendship(request.to, request.from)
        return Friendship(friend: request.from, since: friendship.since)
    }

    /// The receiver says no. The sender is not told (the request just disappears).
    public func decline(_ id: FriendRequestID, by user: UserID) async throws {
        let request = try await pendingRequest(id, involving: user)
        guard request.to == user else { throw FriendErrors.notReceiver }
        try await store.deleteRequest(id: id)
    }

    /// The sender takes it back.
    public func cancel(_ id: FriendRequestID, by user: UserID) async throws {
        let request = try await pendingRequest(id, involving: user)
        guard request.from == user else { throw FriendErrors.notSender }
        try await store.deleteRequest(id: id)
    }

    public func requests(of user: UserID, direction: RequestDirection) async throws -> [FriendRequest] {
        try await store.requests(of: user, direction: direction)
    }

    /// A request the user is part of; anyone else is told it does not exist.
    func pendingRequest(_ id: FriendRequestID, involving user: UserID) async throws -> FriendRequest {
        guard let request = try await store.request(id: id), request.from == user || request.to == user else {
            throw FriendErrors.requestNotFound
        }
        return request
    }

    // MARK: Friendship

    public func friends(of user: UserID) async throws -> [Friendship] {
        try await store.friends(of: user)
    }

    public func unfriend(_ user: UserID, friend: UserID) async throws {
        guard try await store.unfriend(user, friend) else { throw FriendErrors.notFriends }
        await events.publish(.friendRemoved(UserRefEvent(userId: friend.rawValue)), to: [user])
        await events.publish(.friendRemoved(UserRefEvent(userId: user.rawValue)), to: [friend])
    }

    func announceFriendship(_ a: UserID, _ b: UserID) async {
        await events.publish(.friendAccepted(UserRefEvent(userId: b.rawValue)), to: [a])
        await events.publish(.friendAccepted(UserRefEvent(userId: a.rawValue)), to: [b])
    }

    // MARK: Blocks

    /// Blocks `target`: ends friendship and requests both ways. Idempotent.
    public func block(_ target: UserID, by blocker: UserID) async throws {
        guard target != blocker else { throw FriendErrors.blockYourself }
        guard try await store.userExists(target) else { throw FriendErrors.userNotFound }
        if try await store.block(blocker: blocker, blocked: target, at: clock.now()) {
            // To the blocked side this looks like an unfriend, nothing more.
            await events.publish(.friendRemoved(UserRefEvent(userId: target.rawValue)), to: [blocker])
            await events.publish(.friendRemoved(UserRefEvent(userId: blocker.rawValue)), to: [target])
        }
        for observer in blockObservers.withLock({ $0 }) { await observer(blocker, target) }
        logger.info("blocked", metadata: ["blocker": "\(blocker)", "blocked": "\(target)"])
    }

    /// Calls `observer` after every block (also a repeated one: what it ends may have begun since).
    public func onBlock(_ observer: @escaping @Sendable (_ blocker: UserID, _ blocked: UserID) async -> Void) {
        blockObservers.withLock { $0.append(observer) }
    }

    /// Lifts a block (idempotent). Friendship does not come back by itself.
    public func unblock(_ target: UserID, by blocker: UserID) async throws {
        try await store.unblock(blocker: blocker, blocked: target)
    }

    public func blocks(by blocker: UserID) async throws -> [Block] {
        try await store.blocks(by: blocker)
    }

    // MARK: RelationshipDirectory

    public func relationships(of viewer: UserID, to others: [UserID]) async throws -> [UserID: Relationship] {
        try await store.relationships(of: viewer, to: others)
    }

    public func blockers(of viewer: UserID) async throws -> Set<UserID> {
        try await store.blockers(of: viewer)
    }
}

extension FriendRequestEvent {
    init(_ request: FriendRequest) {
        self.init(id: request.id.rawValue, from: request.from.rawValue, to: request.to.rawValue,
                  createdAt: WireTime.string(request.createdAt))
    }
}

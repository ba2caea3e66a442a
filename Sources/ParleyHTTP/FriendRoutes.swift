import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore
import ParleyFriends

/// `/v1/friends` and `/v1/blocks`.
struct FriendRoutes {
    let friends: FriendService
    let accounts: AccountService
    let users: UserPresenter

    struct RequestBody_: Decodable { let userId: String }
    struct RequestView: ResponseEncodable { let id: String; let from: UserBody; let to: UserBody; let createdAt: String }
    struct RequestEnvelope: ResponseEncodable { let request: RequestView }
    struct FriendEnvelope: ResponseEncodable { let friend: UserBody }
    struct FriendList: ResponseEncodable { let friends: [UserBody] }
    struct RequestList: ResponseEncodable { let requests: [RequestView] }
    struct BlockView: ResponseEncodable { let user: UserBody; let blockedAt: String }
    struct BlockList: ResponseEncodable { let blocks: [BlockView] }

    func add(friends group: RouterGroup<ParleyRequestContext>, blocks: RouterGroup<ParleyRequestContext>) {
        group.get(use: list)
        group.get("requests", use: requests)
        group.post("requests", use: sendRequest)
        group.post("requests/:id/accept", use: accept)
        group.post("requests/:id/decline", use: decline)
        group.delete("requests/:id", use: cancel)
        group.delete(":userId", use: unfriend)
        blocks.get(use: blockList)
        blocks.put(":userId", use: block)
        blocks.delete(":userId", use: unblock)
    }

    func list(_ request: Request, context: ParleyRequestContext) async throws -> FriendList {
        let me = try context.requirePrincipal().userID
        let friendships = try await friends.friends(of: me)
        let records = try await accounts.users(ids: friendships.map(\.friend))
        let seen = try await users.presence(of: records, to: me, relationships: Dictionary(uniqueKeysWithValues: records.map { ($0.id, .friend) }))
        let bodies = records.sorted { $0.name.lowercased() < $1.name.lowercased() }
            .map { users.body($0, viewer: me, relationship: .friend, presence: seen[$0.id]) }
        return FriendList(friends: bodies)
    }

    /// `?direction=incoming` (the default) or `outgoing`.
    func requests(_ request: Request, context: ParleyRequestContext) async throws -> RequestList {
        let me = try context.requirePrincipal().userID
        let text = request.uri.queryParameters["direction"].map(String.init) ?? "incoming"
        guard let direction = RequestDirection(rawValue: text) else {
            throw ParleyError.invalidField("direction", "incoming or outgoing")
        }
        let pending = try await friends.requests(of: me, direction: direction)
        return RequestList(requests: try await views(pending, viewer: me))
    }

    /// 201 `{request}`, or 200 `{friend}` when they had already asked.
    func sendRequest(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(RequestBody_.self, from: request)
        switch try await friends.sendRequest(from: me, to: UserID(rawValue: body.userId)) {
        case .requested(let pending):
            let view = try await views([pending], viewer: me)[0]
            return try RequestEnvelope(request: view).response(from: request, context: context).with(status: .created)
        case .becameFriends(let friendship):
            return try await friendEnvelope(friendship.friend, viewer: me).response(from: request, context: context)
        }
    }

    func accept(_ request: Request, context: ParleyRequestContext) async throws -> FriendEnvelope {
        let me = try context.requirePrincipal().userID
        let friendship = try await friends.accept(FriendRequestID(rawValue: try context.parameters.require("id")), by: me)
        return try await friendEnvelope(friendship.friend, viewer: me)
    }

    func decline(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await friends.decline(FriendRequestID(rawValue: try context.parameters.require("id")), by: me)
        return Response(status: .noContent)
    }

    func cancel(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await friends.cancel(FriendRequestID(rawValue: try context.parameters.require("id")), by: me)
        return Response(status: .noContent)
    }

    func unfriend(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await friends.unfriend(me, friend: UserID(rawValue: try context.parameters.require("userId")))
        return Response(status: .noContent)
    }

    func blockList(_ request: Request, context: ParleyRequestContext) async throws -> BlockList {
        let me = try context.requirePrincipal().userID
        let blocks = try await friends.blocks(by: me)
        let records = Dictionary(uniqueKeysWithValues: try await accounts.users(ids: blocks.map(\.blocked)).map { ($0.id, $0) })
        return BlockList(blocks: blocks.compactMap { block in
            records[block.blocked].map {
                BlockView(user: users.body($0, viewer: me, relationship: .blocked), blockedAt: WireTime.string(block.since))
            }
        })
    }

    func block(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await friends.block(UserID(rawValue: try context.parameters.require("userId")), by: me)
        return Response(status: .noContent)
    }

    func unblock(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await friends.unblock(UserID(rawValue: try context.parameters.require("userId")), by: me)
        return Response(status: .noContent)
    }

    func friendEnvelope(_ friend: UserID, viewer: UserID) async throws -> FriendEnvelope {
        FriendEnvelope(friend: users.body(try await accounts.user(id: friend), viewer: viewer, relationship: .friend))
    }

    /// Requests with both people as user objects, as `viewer` sees them.
    func views(_ requests: [FriendRequest], viewer: UserID) async throws -> [RequestView] {
        let ids = Set(requests.flatMap { [$0.from, $0.to] })
        let people = try await users.present(try await accounts.users(ids: Array(ids)), to: viewer)
        let byID = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) })
        return requests.compactMap { request in
            guard let from = byID[request.from.rawValue], let to = byID[request.to.rawValue] else { return nil }
            return RequestView(id: request.id.rawValue, from: from, to: to, createdAt: WireTime.string(request.createdAt))
        }
    }
}

extension Response {
    func with(status: HTTPResponse.Status) -> Response {
        var response = self
        response.status = status
        return response
    }
}

import Foundation
import Hummingbird
import NIOCore
import ParleyAccounts
import ParleyCore

/// `/v1/users`: finding people; `/v1/avatars`: their pictures.
struct UserRoutes {
    let accounts: AccountService
    let users: UserPresenter

    struct SearchPage: ResponseEncodable { let users: [UserBody]; let nextCursor: String? }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.get(use: search)
        group.get(":id", use: user)
    }

    /// GET /v1/users?query=&limit=&cursor=: verified users by part of their name (two letters: the start
    /// of a name or of a word in it) or their whole e-mail address.
    func search(_ request: Request, context: ParleyRequestContext) async throws -> SearchPage {
        let principal = try context.requirePrincipal()
        let parameters = request.uri.queryParameters
        let query = request.searchText("query")
        let limit = try request.pageLimit(default: 20, max: 50)
        var cursor: UserSearchCursor?
        if let text = parameters["cursor"], !text.isEmpty {
            guard let decoded = UserSearchCursor(encoded: String(text)) else {
                throw ParleyError.badRequest("cursor is not one this server gave out", code: "invalid_cursor")
            }
            cursor = decoded
        }
        let hidden = try await users.relationships.blockers(of: principal.userID)
        let page = try await accounts.search(
            query: query, viewer: principal.userID, excluding: hidden, cursor: cursor, limit: limit)
        return SearchPage(users: try await users.present(page.users, to: principal.userID), nextCursor: page.next?.encoded)
    }

    func user(_ request: Request, context: ParleyRequestContext) async throws -> AuthRoutes.UserEnvelope {
        let principal = try context.requirePrincipal()
        let id = UserID(rawValue: try context.parameters.require("id"))
        let user = try await accounts.user(id: id)
        if id != principal.userID, try await users.relationships.blockers(of: principal.userID).contains(id) {
            throw AccountErrors.userNotFound   // a blocker is invisible to the blocked
        }
        return .init(user: try await users.present(user, to: principal.userID))
    }
}

/// `/v1/avatars/{hash}`: avatar images, immutable by construction (content-addressed).
struct AvatarRoutes {
    let accounts: AccountService

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.get(":hash", use: avatar)
    }

    func avatar(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        _ = try context.requirePrincipal()
        guard let (bytes, type) = try await accounts.avatar(hash: try context.parameters.require("hash")) else {
            throw ParleyError.notFound("Avatar")
        }
        return Response(
            status: .ok,
            headers: [.contentType: type.contentType, .cacheControl: "private, max-age=31536000, immutable"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

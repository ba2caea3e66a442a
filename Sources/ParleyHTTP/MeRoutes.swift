import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore
import ParleyFriends
import ParleyPresence

/// `/v1/me`: the signed-in user's own account.
struct MeRoutes {
    let accounts: AccountService
    let friends: FriendService
    let users: UserPresenter
    let presence: PresenceService?
    let maxAvatarBytes: Int

    struct PatchBody: Decodable { let name: String?; let status: String? }
    struct DeleteBody: Decodable { let password: String }
    struct EmailChangeBody: Decodable { let email: String; let password: String }
    struct EmailCodeBody: Decodable { let code: String }
    struct EmailChangePending: ResponseEncodable { let pendingEmail: String; let expiresInSeconds: Int }
    struct PrivacyBody: Decodable { let messagesFrom: MessagesFrom?; let presenceVisibleTo: PresenceAudience? }
    struct PrivacyView: ResponseEncodable { let messagesFrom: MessagesFrom; let presenceVisibleTo: PresenceAudience }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.get(use: me)
        group.patch(use: update)
        group.delete(use: delete)
        group.put("avatar", use: setAvatar)
        group.post("email", use: requestEmailChange)
        group.post("email/confirm", use: confirmEmailChange)
        group.get("privacy", use: privacy)
        group.put("privacy", use: setPrivacy)
    }

    /// A code goes to the new address; the account moves there when it comes back.
    func requestEmailChange(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(EmailChangeBody.self, from: request)
        let pending = try await accounts.requestEmailChange(
            id: me, newEmail: body.email, password: body.password, clientAddress: context.clientAddress)
        return try EmailChangePending(pendingEmail: pending.email, expiresInSeconds: pending.lifetime)
            .response(from: request, context: context).with(status: .accepted)
    }

    func confirmEmailChange(_ request: Request, context: ParleyRequestContext) async throws -> AuthRoutes.UserEnvelope {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(EmailCodeBody.self, from: request)
        return .init(user: try await users.own(try await accounts.confirmEmailChange(id: me, code: body.code)))
    }

    func privacy(_ request: Request, context: ParleyRequestContext) async throws -> PrivacyView {
        let settings = try await friends.privacy(of: try context.requirePrincipal().userID)
        return PrivacyView(messagesFrom: settings.messagesFrom, presenceVisibleTo: settings.presenceVisibleTo)
    }

    /// The fields sent change; the others stay.
    func setPrivacy(_ request: Request, context: ParleyRequestContext) async throws -> PrivacyView {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(PrivacyBody.self, from: request)
        let settings = try await friends.setPrivacy(of: me, messagesFrom: body.messagesFrom, presenceVisibleTo: body.presenceVisibleTo)
        return PrivacyView(messagesFrom: settings.messagesFrom, presenceVisibleTo: settings.presenceVisibleTo)
    }

    func me(_ request: Request, context: ParleyRequestContext) async throws -> AuthRoutes.UserEnvelope {
        let principal = try context.requirePrincipal()
        return .init(user: try await users.own(try await accounts.user(id: principal.userID)))
    }

    func update(_ request: Request, context: ParleyRequestContext) async throws -> AuthRoutes.UserEnvelope {
        let principal = try context.requirePrincipal()
        let body = try await RequestBody.json(PatchBody.self, from: request)
        let user = try await accounts.updateProfile(id: principal.userID, name: body.name, status: body.status)
        if body.name != nil || body.status != nil { await presence?.profileChanged(principal.userID) }
        return .init(user: try await users.own(user))
    }

    /// The image is the raw body; its type is read from its bytes.
    func setAvatar(_ request: Request, context: ParleyRequestContext) async throws -> AuthRoutes.UserEnvelope {
        let principal = try context.requirePrincipal()
        let bytes = try await RequestBody.bytes(request, limit: maxAvatarBytes)
        if bytes.isEmpty { throw ParleyError.badRequest("The image is the request body", code: "missing_body") }
        let user = try await accounts.setAvatar(id: principal.userID, image: bytes)
        await presence?.profileChanged(principal.userID)
        return .init(user: try await users.own(user))
    }

    func delete(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let body = try await RequestBody.json(DeleteBody.self, from: request)
        try await accounts.deleteAccount(id: principal.userID, password: body.password, clientAddress: context.clientAddress)
        return Response(status: .noContent)
    }
}

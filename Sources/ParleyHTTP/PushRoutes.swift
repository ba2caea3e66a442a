import Foundation
import Hummingbird
import ParleyChat
import ParleyCore
import ParleyPush

/// `/v1/me/push` (this device's APNs tokens) and `/v1/me/notifications` (what the user wants to
/// be pushed about, and the dialogs they muted).
struct PushRoutes {
    let push: PushSetup
    let chat: ChatService

    struct Settings: ResponseEncodable, Decodable {
        var messages: Bool
        var friendRequests: Bool
        var calls: Bool
        var previews: Bool
        var mutedDialogIds: [String]
    }

    struct SettingsPatch: Decodable {
        var messages: Bool?
        var friendRequests: Bool?
        var calls: Bool?
        var previews: Bool?
    }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.put("push", use: register)
        group.delete("push", use: unregister)
        group.get("notifications", use: settings)
        group.patch("notifications", use: update)
        group.put("notifications/muted-dialogs/:dialogId", use: mute)
        group.delete("notifications/muted-dialogs/:dialogId", use: unmute)
    }

    /// Registers the signed-in device's tokens, replacing the ones it had.
    func register(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let body = try await RequestBody.json(PushRegistration.self, from: request)
        guard let bundleID = push.bundleID, let store = push.store else {
            throw ParleyError(.unavailable, code: "push_not_configured", "This server sends no pushes (push.apns is not configured)")
        }
        let device = try body.validated(session: principal.sessionID, user: principal.userID, bundleID: bundleID)
        try await store.register(device, at: Date())
        return Response(status: .noContent)
    }

    func unregister(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        try await push.store?.remove(session: principal.sessionID)
        return Response(status: .noContent)
    }

    func settings(_ request: Request, context: ParleyRequestContext) async throws -> Settings {
        try await current(try context.requirePrincipal().userID)
    }

    func update(_ request: Request, context: ParleyRequestContext) async throws -> Settings {
        let user = try context.requirePrincipal().userID
        let patch = try await RequestBody.json(SettingsPatch.self, from: request)
        var settings = try await store().settings(of: user)
        if let value = patch.messages { settings.messages = value }
        if let value = patch.friendRequests { settings.friendRequests = value }
        if let value = patch.calls { settings.calls = value }
        if let value = patch.previews { settings.previews = value }
        try await store().save(settings, of: user)
        return try await current(user)
    }

    /// Mutes a dialog the user is a member of (404 `dialog_not_found` otherwise).
    func mute(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        try await setMuted(true, request, context)
    }

    func unmute(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        try await setMuted(false, request, context)
    }

    func setMuted(_ muted: Bool, _ request: Request, _ context: ParleyRequestContext) async throws -> Response {
        let user = try context.requirePrincipal().userID
        let dialog = DialogID(rawValue: try context.parameters.require("dialogId"))
        _ = try await chat.dialog(user, dialog)
        try await store().setMuted(muted, dialog: dialog, for: user)
        return Response(status: .noContent)
    }

    func current(_ user: UserID) async throws -> Settings {
        let settings = try await store().settings(of: user)
        return Settings(messages: settings.messages, friendRequests: settings.friendRequests, calls: settings.calls,
                        previews: settings.previews, mutedDialogIds: try await store().mutedDialogs(of: user).map(\.rawValue))
    }

    func store() throws -> PushStore {
        guard let store = push.store else { throw ParleyError(.unavailable, code: "push_not_configured", "Push is not set up") }
        return store
    }
}

/// What the HTTP edge needs of push: the store (always there with a database) and the app it
/// pushes to (nil when APNs is not configured: registration answers `503 push_not_configured`).
public struct PushSetup: Sendable {
    public var store: PushStore?
    public var bundleID: String?

    public init(store: PushStore?, bundleID: String?) {
        self.store = store
        self.bundleID = bundleID
    }

    public static let disabled = PushSetup(store: nil, bundleID: nil)
}

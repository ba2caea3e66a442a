import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

// An app's first session against a live Parley, through nothing but the client that
// swift-openapi-generator made from docs/openapi.yaml with its default configuration (its default
// ISO 8601 date transcoder among it). Each step takes the answer the spec documents for success
// (`.ok`, `.created`, … throw when another one came) and decodes its body with the generated types;
// any other answer, or a body they cannot decode, ends the walk with exit status 1.
//
// usage: ParleyAPIWalk <server URL> <outbox folder of that server>

/// Adds the bearer token the way an app's middleware would.
struct Bearer: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

struct WalkFailure: Error, CustomStringConvertible {
    let description: String
}

/// A 1×1 PNG (signature, IHDR, IDAT, IEND).
let png: [UInt8] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
]

let arguments = CommandLine.arguments
guard arguments.count == 3, let serverURL = URL(string: arguments[1]) else {
    print("usage: ParleyAPIWalk <server URL> <outbox folder>")
    exit(2)
}
let outbox = arguments[2]
let transport = AsyncHTTPClientTransport()

/// The generated client as a signed-out app has it, or signed in with `token`.
func api(_ token: String? = nil) -> Client {
    Client(serverURL: serverURL, transport: transport, middlewares: token.map { [Bearer(token: $0)] } ?? [])
}

func check(_ condition: Bool, _ what: String) throws {
    guard condition else { throw WalkFailure(description: what) }
}

var steps = 0
@MainActor func step(_ name: String) { steps += 1; print("openapi-walk: \(name)") }

/// The verification token in the newest mail to `address`, waiting up to 5 s for it.
func mailedToken(to address: String) async throws -> String {
    for _ in 0..<100 {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
        for name in names.reversed() {
            guard let mail = try? String(contentsOfFile: outbox + "/" + name, encoding: .utf8), mail.contains(address),
                  let match = mail.firstMatch(of: /token=([A-Za-z0-9_-]{20,})/) else { continue }
            return String(match.1)
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw WalkFailure(description: "no verification mail to \(address) in \(outbox)")
}

/// Registers, follows the mailed link, signs in and refreshes once: the tokens an app keeps.
@MainActor func signUp(_ name: String, _ email: String) async throws -> Components.Schemas.Grant {
    step("\(name): register")
    let registered = try await api().register(body: .json(.init(
        name: name, email: email, password: "correct horse", dateOfBirth: "2000-01-01"))).created.body.json
    try check(registered.user.name == name, "register answered another user")
    step("\(name): verify the mailed link")
    let verified = try await api().verifyEmail(body: .json(.init(token: try await mailedToken(to: email)))).ok.body.json
    try check(verified.user.id == registered.user.id, "verify answered another user")
    step("\(name): sign in and refresh")
    let grant = try await api().login(body: .json(.init(email: email, password: "correct horse", deviceName: "iPhone")))
        .ok.body.json
    let refreshed = try await api().refresh(body: .json(.init(refreshToken: grant.refreshToken))).ok.body.json
    try check(refreshed.refreshToken != grant.refreshToken, "refresh gave back the same refresh token")
    try check(refreshed.user.createdAt.timeIntervalSinceNow < 60, "createdAt decoded to a time in the future")
    return refreshed
}

do {
    let ann = try await signUp("Ann", "ann@example.com")
    let bo = try await signUp("Bo", "bo@example.com")

    step("profile: name, status and avatar")
    let renamed = try await api(ann.accessToken).updateMe(body: .json(.init(name: "Ann Lee", status: "Out sailing")))
        .ok.body.json
    try check(renamed.user.status == "Out sailing", "status not changed")
    let withAvatar = try await api(ann.accessToken).setAvatar(body: .png(HTTPBody(png))).ok.body.json
    try check(withAvatar.user.avatarUrl != nil, "no avatarUrl after setting an avatar")
    _ = try await api(ann.accessToken).getMe().ok.body.json

    step("friends: find, request, accept")
    let found = try await api(ann.accessToken).searchUsers(query: .init(query: "Bo")).ok.body.json
    try check(found.users.contains { $0.id == bo.user.id }, "search did not find Bo")
    let request = try await api(ann.accessToken).sendFriendRequest(body: .json(.init(userId: bo.user.id))).created.body.json
    let incoming = try await api(bo.accessToken).listFriendRequests().ok.body.json
    try check(incoming.requests.map(\.id) == [request.request.id], "Bo does not see Ann's request")
    _ = try await api(bo.accessToken).acceptFriendRequest(path: .init(id: request.request.id)).ok.body.json
    let friends = try await api(ann.accessToken).listFriends().ok.body.json
    try check(friends.friends.map(\.id) == [bo.user.id], "Bo is not Ann's friend")

    step("chat: open a dialog, send and page messages")
    let dialog = try await api(ann.accessToken).createDialog(body: .json(._private(.init(_type: ._private, userId: bo.user.id))))
        .created.body.json.dialog
    for n in 1...3 {
        _ = try await api(ann.accessToken).sendMessage(
            path: .init(id: dialog.id),
            body: .json(.init(clientMessageId: UUID().uuidString, kind: .text, text: "message \(n)"))).created.body.json
    }
    let first = try await api(bo.accessToken).listMessages(path: .init(id: dialog.id), query: .init(limit: 2)).ok.body.json
    try check(first.messages.count == 2 && first.nextCursor != nil, "the first page is not two messages with a cursor")
    let second = try await api(bo.accessToken).listMessages(
        path: .init(id: dialog.id), query: .init(before: first.nextCursor, limit: 2)).ok.body.json
    try check(second.messages.count == 1 && second.nextCursor == nil, "the last page is not the one message left")
    try await api(bo.accessToken).markDialogRead(
        path: .init(id: dialog.id), body: .json(.init(upToMessageId: first.messages[0].id))).noContent
    let dialogs = try await api(bo.accessToken).listDialogs().ok.body.json
    try check(dialogs.dialogs.map(\.id) == [dialog.id], "Bo's chat list is not the one dialog")

    step("attachments: upload an image, send it, read it back")
    let image = try await api(ann.accessToken).uploadAttachment(body: .any(HTTPBody(png))).created.body.json
    let sent = try await api(ann.accessToken).sendMessage(
        path: .init(id: dialog.id),
        body: .json(.init(clientMessageId: UUID().uuidString, kind: .image, attachmentId: image.id))).created.body.json
    try check(sent.message.attachment?.id == image.id, "the image message does not carry its attachment")
    let download = try await api(bo.accessToken).getAttachment(path: .init(id: image.id)).ok.body.png
    try check(try await [UInt8](collecting: download, upTo: 1 << 20) == png, "the attachment came back changed")

    step("stories: post, feed, view, viewers")
    let story = try await api(ann.accessToken).postStory(body: .json(.init(attachmentId: image.id, title: "Morning")))
        .created.body.json.story
    try check(story.expiresAt.timeIntervalSince(story.createdAt) == 24 * 3600, "a story does not last 24 hours")
    let feed = try await api(bo.accessToken).storyFeed().ok.body.json
    try check(feed.users.first?.stories.first?.viewed == false, "Bo's feed does not show Ann's unseen story")
    try await api(bo.accessToken).viewStory(path: .init(id: story.id)).noContent
    let viewers = try await api(ann.accessToken).storyViewers(path: .init(id: story.id)).ok.body.json
    try check(viewers.viewers.map(\.user.id) == [bo.user.id], "Bo is not among the story's viewers")

    step("calls: the history")
    _ = try await api(ann.accessToken).listCalls().ok.body.json

    step("sign out")
    try await api(ann.accessToken).logout(body: .json(.init(refreshToken: ann.refreshToken))).noContent
    print("openapi-walk: passed, \(steps) steps")
} catch {
    print("openapi-walk: step \(steps) failed: \(error)")
    exit(1)
}

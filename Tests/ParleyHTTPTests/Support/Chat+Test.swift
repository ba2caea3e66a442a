import Foundation
import HummingbirdTesting
import Testing

typealias JSON = [String: any Sendable]

extension TestClientProtocol {
    /// Makes `a` and `b` friends through the API.
    func befriend(_ a: TestUser, _ b: TestUser) async throws {
        _ = try await call(.post, "/v1/friends/requests", json: ["userId": b.id], token: a.accessToken)
        let reply = try await call(.post, "/v1/friends/requests", json: ["userId": a.id], token: b.accessToken)
        try #require(reply.status == .ok, "befriending: \(reply.text)")
    }

    /// Ann and Bo, signed up, friends, and their private dialog: where most chat and call tests start.
    func annAndBoInTheirDialog(outbox: Outbox) async throws -> (ann: TestUser, bo: TestUser, dialog: String) {
        let ann = try await signUp("Ann", "ann@example.com", outbox: outbox)
        let bo = try await signUp("Bo", "bo@example.com", outbox: outbox)
        try await befriend(ann, bo)
        return (ann, bo, try await privateDialog(ann, with: bo))
    }

    /// The private dialog of `a` with `b` (created on first use).
    func privateDialog(_ a: TestUser, with b: TestUser) async throws -> String {
        let reply = try await call(.post, "/v1/dialogs", json: ["type": "private", "userId": b.id], token: a.accessToken)
        return try #require((reply["dialog"] as? JSON)?["id"] as? String, "\(reply.text)")
    }

    func sendText(_ user: TestUser, _ dialog: String, _ text: String, clientID: String = UUID().uuidString) async throws -> Reply {
        try await call(.post, "/v1/dialogs/\(dialog)/messages",
                       json: ["clientMessageId": clientID, "kind": "text", "text": text], token: user.accessToken)
    }

    func history(_ user: TestUser, _ dialog: String, query: String = "") async throws -> [JSON] {
        try await call(.get, "/v1/dialogs/\(dialog)/messages\(query)", token: user.accessToken)["messages"] as? [JSON] ?? []
    }
}

extension Frame {
    var message: [String: Any]? { json["message"] as? [String: Any] }
}

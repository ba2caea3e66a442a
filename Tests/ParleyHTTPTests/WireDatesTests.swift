import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Every answer that carries a time decodes with the platform's defaults: `JSONDecoder` with the
/// `.iso8601` date strategy (what an iOS app writes first), which takes no fractional seconds.
@Suite struct WireDatesTests {
    struct UserBody: Decodable { let id: String; let createdAt: Date }
    struct UserEnvelope: Decodable { let user: UserBody }
    struct Login: Decodable { let user: UserBody }
    struct Request: Decodable { let id: String; let createdAt: Date; let from: UserBody; let to: UserBody }
    struct Requests: Decodable { let requests: [Request] }
    struct Block: Decodable { let user: UserBody; let blockedAt: Date }
    struct Blocks: Decodable { let blocks: [Block] }
    struct Dialog: Decodable { let id: String; let updatedAt: Date }
    struct Dialogs: Decodable { let dialogs: [Dialog] }
    struct DialogEnvelope: Decodable { let dialog: Dialog }
    struct Message: Decodable { let id: String; let createdAt: Date }
    struct Messages: Decodable { let messages: [Message] }
    struct MessageEnvelope: Decodable { let message: Message }
    struct Story: Decodable { let id: String; let owner: UserBody; let createdAt: Date; let expiresAt: Date }
    struct StoryEnvelope: Decodable { let story: Story }
    struct Stories: Decodable { let stories: [Story] }
    struct FeedEntry: Decodable { let user: UserBody; let stories: [Story] }
    struct Feed: Decodable { let users: [FeedEntry] }
    struct Viewer: Decodable { let user: UserBody; let viewedAt: Date }
    struct Viewers: Decodable { let viewers: [Viewer] }
    struct CallEntry: Decodable { let id: String; let startedAt: Date }
    struct Calls: Decodable { let calls: [CallEntry] }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Decodes `reply` as `T`, failing the test with the body when the platform's decoder cannot.
    func decode<T: Decodable>(_ type: T.Type, _ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        do {
            return try Self.decoder.decode(T.self, from: Data(reply.bytes))
        } catch {
            Issue.record("\(T.self) does not decode with .iso8601: \(error)\n\(reply.text)", sourceLocation: sourceLocation)
            throw error
        }
    }

    @Test func everyAnswerWithATimeDecodesWithJSONDecodersISO8601Strategy() async throws {
        let parley = try await TestParley.start()
        parley.clock.advance(by: 0.456)   // a time with a fraction of a second, as real clocks have
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let login = try decode(Login.self, try await client.call(
                .post, "/v1/auth/login", json: ["email": ann.email, "password": ann.password, "deviceName": "iPhone"]))
            #expect(login.user.createdAt == Date(timeIntervalSince1970: 1_795_348_800), "whole seconds, the fraction dropped")
            _ = try decode(UserEnvelope.self, try await client.call(.get, "/v1/me", token: ann.accessToken))
            _ = try decode(UserEnvelope.self, try await client.call(.get, "/v1/users/\(bo.id)", token: ann.accessToken))

            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            let requests = try decode(Requests.self, try await client.call(.get, "/v1/friends/requests", token: bo.accessToken))
            #expect(requests.requests.count == 1)
            _ = try await client.call(.post, "/v1/friends/requests/\(requests.requests[0].id)/accept", token: bo.accessToken)
            _ = try await client.call(.put, "/v1/blocks/\(cy.id)", token: ann.accessToken)
            #expect(try decode(Blocks.self, try await client.call(.get, "/v1/blocks", token: ann.accessToken)).blocks.count == 1)

            let dialog = try decode(DialogEnvelope.self, try await client.call(
                .post, "/v1/dialogs", json: ["type": "private", "userId": bo.id], token: ann.accessToken)).dialog
            _ = try decode(MessageEnvelope.self, try await client.sendText(ann, dialog.id, "hello"))
            #expect(try decode(Messages.self, try await client.call(.get, "/v1/dialogs/\(dialog.id)/messages", token: bo.accessToken)).messages.count == 1)
            #expect(try decode(Dialogs.self, try await client.call(.get, "/v1/dialogs", token: bo.accessToken)).dialogs.count == 1)

            let image = try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: ann.accessToken)
            let story = try decode(StoryEnvelope.self, try await client.call(
                .post, "/v1/stories", json: ["attachmentId": image["id"] as? String ?? "", "title": "Morning"], token: ann.accessToken)).story
            #expect(try decode(Stories.self, try await client.call(.get, "/v1/stories/mine", token: ann.accessToken)).stories.count == 1)
            #expect(try decode(Feed.self, try await client.call(.get, "/v1/stories/feed", token: bo.accessToken)).users.count == 1)
            _ = try await client.call(.post, "/v1/stories/\(story.id)/views", token: bo.accessToken)
            #expect(try decode(Viewers.self, try await client.call(.get, "/v1/stories/\(story.id)/viewers", token: ann.accessToken)).viewers.count == 1)

            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { annSocket.close() }
            let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "audio", "sdp": CallSignallingTests.offer])
            let callID = try #require(invite["callId"] as? String, "\(invite)")
            #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
            #expect(try decode(Calls.self, try await client.call(.get, "/v1/calls", token: bo.accessToken)).calls.count == 1)
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Message requests (seeds 001, 004): a user chooses who may write to them; a stranger's first
/// message waits as a request that its receiver accepts (a normal chat) or declines (gone for
/// both), and blocks still stop everything.
@Suite struct MessageRequestTests {
    static func everyone(_ user: TestUser, _ client: some TestClientProtocol) async throws {
        let reply = try await client.call(.put, "/v1/me/privacy", json: ["messagesFrom": "everyone"], token: user.accessToken)
        #expect(reply.status == .ok && reply["messagesFrom"] as? String == "everyone", "\(reply.text)")
    }

    static func requests(_ user: TestUser, _ client: some TestClientProtocol) async throws -> [JSON] {
        try await client.call(.get, "/v1/message-requests", token: user.accessToken)["requests"] as? [JSON] ?? []
    }

    static func dialogIDs(_ user: TestUser, _ client: some TestClientProtocol) async throws -> [String] {
        (try await client.call(.get, "/v1/dialogs", token: user.accessToken)["dialogs"] as? [JSON] ?? []).compactMap { $0["id"] as? String }
    }

    @Test func aRequestAcceptedBecomesANormalChat() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let closed = try await client.call(.post, "/v1/dialogs", json: ["type": "private", "userId": bo.id], token: ann.accessToken)
            #expect(closed.errorCode == "friendship_required", "friends only until Bo opens up: \(closed.text)")
            let privacy = try await client.call(.get, "/v1/me/privacy", token: bo.accessToken)
            #expect(privacy["messagesFrom"] as? String == "friends" && privacy["presenceVisibleTo"] as? String == "friends")
            try await Self.everyone(bo, client)
            #expect(try await client.call(.get, "/v1/me/privacy", token: bo.accessToken)["presenceVisibleTo"] as? String == "friends",
                    "a field not sent stays")

            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { annSocket.close(); boSocket.close() }
            let dialog = try await client.privateDialog(ann, with: bo)
            #expect(try await client.sendText(ann, dialog, "Hi, we met at the conference").status == .created)
            let request = try await boSocket.next { $0.type == "message.request" }
            let body = try #require(request["request"] as? [String: Any])
            #expect(body["status"] as? String == "pending" && body["from"] as? String == ann.id && body["dialogId"] as? String == dialog)
            #expect((body["message"] as? [String: Any])?["text"] as? String == "Hi, we met at the conference")
            #expect(request.seq != nil, "stored: a device that was away gets it by sync")
            #expect(try await client.sendText(ann, dialog, "Are you there?").status == .created)
            #expect(await boSocket.receives { $0.type == "message.new" } == false, "a waiting request's messages are not pushed")

            #expect(try await Self.dialogIDs(bo, client).contains(dialog) == false, "a request is not in the dialog list")
            let waiting = try await Self.requests(bo, client)
            #expect(waiting.count == 1)
            #expect((waiting.first?["from"] as? JSON)?["id"] as? String == ann.id)
            #expect((waiting.first?["message"] as? JSON)?["text"] as? String == "Hi, we met at the conference", "the first message")
            #expect(try await client.history(bo, dialog).count == 2, "the receiver may read what waits")
            #expect(try await client.sendText(bo, dialog, "hello?").errorCode == "message_request_pending")
            #expect(try await client.call(.post, "/v1/message-requests/\(dialog)/accept", token: ann.accessToken).errorCode
                    == "message_request_not_found", "only the receiver answers")

            let accepted = try await client.call(.post, "/v1/message-requests/\(dialog)/accept", token: bo.accessToken)
            #expect(accepted.status == .ok && (accepted["dialog"] as? JSON)?["id"] as? String == dialog, "\(accepted.text)")
            let told = try await annSocket.next { $0.type == "message.request" }
            #expect((told["request"] as? [String: Any])?["status"] as? String == "accepted")
            #expect(try await Self.dialogIDs(bo, client).contains(dialog))
            #expect(try await Self.requests(bo, client).isEmpty)
            #expect(try await client.sendText(bo, dialog, "Yes! Hi Ann").status == .created)
            _ = try await annSocket.next { $0.type == "message.new" && $0.message?["text"] as? String == "Yes! Hi Ann" }
            _ = try await client.sendText(ann, dialog, "Great")
            _ = try await boSocket.next { $0.type == "message.new" && $0.message?["text"] as? String == "Great" }   // a normal chat now
            let friendsList = try await client.call(.get, "/v1/friends", token: bo.accessToken)["friends"] as? [JSON] ?? []
            #expect(friendsList.isEmpty, "accepting a chat is not a friendship")
        }
    }

    @Test func aRequestDeclinedIsGoneForBothAndBlocksStopEverything() async throws {
        let parley = try await TestParley.start { $0.messageRequestsPerHour = 2 }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let dee = try await client.signUp("Dee", "dee@example.com", outbox: parley.outbox)
            try await Self.everyone(bo, client)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { annSocket.close() }

            let dialog = try await client.privateDialog(ann, with: bo)
            _ = try await client.sendText(ann, dialog, "Buy my course")
            #expect(try await client.call(.post, "/v1/message-requests/\(dialog)/decline", token: bo.accessToken).status == .noContent)
            let declined = try await annSocket.next { $0.type == "message.request" }
            #expect((declined["request"] as? [String: Any])?["status"] as? String == "declined")
            #expect(try await annSocket.next { $0.type == "dialog.deleted" }["dialogId"] as? String == dialog)
            for user in [ann, bo] {
                #expect(try await client.call(.get, "/v1/dialogs/\(dialog)", token: user.accessToken).errorCode == "dialog_not_found")
                #expect(try await Self.dialogIDs(user, client).isEmpty)
            }
            #expect(try await Self.requests(bo, client).isEmpty)
            #expect(try await client.call(.post, "/v1/message-requests/\(dialog)/decline", token: bo.accessToken).errorCode
                    == "message_request_not_found")

            // Former friends: declining their new request leaves their old history for both.
            try await client.befriend(cy, bo)
            let old = try await client.privateDialog(cy, with: bo)
            _ = try await client.sendText(cy, old, "old times")
            #expect(try await client.call(.delete, "/v1/friends/\(bo.id)", token: cy.accessToken).status == .noContent)
            #expect(try await client.sendText(cy, old, "remember me?").status == .created)
            #expect(try await Self.requests(bo, client).count == 1)
            #expect(try await client.call(.post, "/v1/message-requests/\(old)/decline", token: bo.accessToken).status == .noContent)
            for user in [cy, bo] {
                #expect(try await client.history(user, old).compactMap { $0["text"] as? String } == ["old times"])
            }

            // A block ends a waiting request, and nothing more gets through.
            let withDee = try await client.privateDialog(dee, with: bo)
            #expect(try await client.sendText(dee, withDee, "hey").status == .created)
            #expect(try await Self.requests(bo, client).count == 1)
            #expect(try await client.call(.put, "/v1/blocks/\(dee.id)", token: bo.accessToken).status == .noContent)
            #expect(try await Self.requests(bo, client).isEmpty)
            #expect(try await client.sendText(dee, withDee, "hey?").errorCode == "dialog_not_found", "the request's dialog went with it")
            let reopened = try await client.call(.post, "/v1/dialogs", json: ["type": "private", "userId": bo.id], token: dee.accessToken)
            #expect(reopened.errorCode == "blocked")

            // Requests per hour (limits.messageRequestsPerHour, 2 here): Ann's third stranger waits.
            let strangers = [bo, cy, dee]
            for other in strangers { try await Self.everyone(other, client) }
            var codes: [String?] = []
            for other in [cy, dee] {
                let withOther = try await client.privateDialog(ann, with: other)
                codes.append(try await client.sendText(ann, withOther, "hi").errorCode)
            }
            #expect(codes == [nil, "rate_limited"], "Ann opened one to Bo already: \(codes)")
        }
    }
}

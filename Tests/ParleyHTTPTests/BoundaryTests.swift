import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Two signed-in users, one boundary: Bo's token on Ann's objects gets 403 or 404, for every
/// kind of object, even though Bo is Ann's friend. Cy is the third person those objects involve.
@Suite struct BoundaryTests {
    struct Scene {
        let ann: TestUser, bo: TestUser, cy: TestUser
        /// Ann and Cy's private dialog: Bo is not in it.
        let dialog: String
    }

    /// Ann is friends with Bo and with Cy; Bo and Cy are strangers.
    static func scene(_ parley: TestParley, _ client: some TestClientProtocol) async throws -> Scene {
        let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
        let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
        let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
        try await client.befriend(ann, bo)
        try await client.befriend(ann, cy)
        return Scene(ann: ann, bo: bo, cy: cy, dialog: try await client.privateDialog(ann, with: cy))
    }

    static func refused(_ reply: Reply) -> Bool { reply.status == .forbidden || reply.status == .notFound }

    @Test func aDialogSomeoneIsNotInIsNotTheirs() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let s = try await Self.scene(parley, client)
            let sent = try await client.sendText(s.ann, s.dialog, "Just us")
            let message = try #require((sent["message"] as? JSON)?["id"] as? String)
            let bo = s.bo.accessToken
            let tries: [(HTTPRequest.Method, String, JSON?)] = [
                (.get, "/v1/dialogs/\(s.dialog)", nil),
                (.patch, "/v1/dialogs/\(s.dialog)", ["name": "Mine now"]),
                (.get, "/v1/dialogs/\(s.dialog)/messages", nil),
                (.post, "/v1/dialogs/\(s.dialog)/messages", ["clientMessageId": "x", "kind": "text", "text": "Hi"]),
                (.post, "/v1/dialogs/\(s.dialog)/read", ["upToMessageId": message]),
                (.post, "/v1/dialogs/\(s.dialog)/members", ["userIds": [s.bo.id]]),
                (.delete, "/v1/dialogs/\(s.dialog)/members/me", nil),
                (.delete, "/v1/dialogs/\(s.dialog)", nil),
            ]
            for (method, path, json) in tries {
                let reply = try await client.call(method, path, json: json, token: bo)
                #expect(Self.refused(reply), "\(method) \(path) as Bo: \(reply.status) \(reply.text)")
            }
            let listed = try await client.call(.get, "/v1/dialogs", token: bo)["dialogs"] as? [JSON] ?? []
            #expect(!listed.contains { $0["id"] as? String == s.dialog })
            #expect(try await client.history(s.cy, s.dialog).count == 1, "Ann and Cy's dialog is as it was")
        }
    }

    @Test func anAttachmentFromADialogSomeoneIsNotInIsNotTheirs() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let s = try await Self.scene(parley, client)
            let upload = try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: s.ann.accessToken)
            let id = try #require(upload["id"] as? String, "\(upload.text)")
            let sent = try await client.call(.post, "/v1/dialogs/\(s.dialog)/messages",
                                             json: ["clientMessageId": "pic", "kind": "image", "attachmentId": id], token: s.ann.accessToken)
            #expect(sent.status == .created, "\(sent.text)")
            #expect(try await client.call(.get, "/v1/attachments/\(id)", token: s.cy.accessToken).status == .ok)
            let asBo = try await client.call(.get, "/v1/attachments/\(id)", token: s.bo.accessToken)
            #expect(Self.refused(asBo), "\(asBo.status) \(asBo.text)")
            #expect(Self.refused(try await client.call(.get, "/v1/attachments/\(id)?token=\(s.bo.accessToken)")))
            // Nor can Bo make it his by sending it on.
            let dialog = try await client.privateDialog(s.bo, with: s.ann)
            let forwarded = try await client.call(.post, "/v1/dialogs/\(dialog)/messages",
                                                  json: ["clientMessageId": "fw", "kind": "image", "attachmentId": id], token: s.bo.accessToken)
            #expect(Self.refused(forwarded) || forwarded.status == .unprocessableContent, "\(forwarded.status) \(forwarded.text)")
        }
    }

    @Test func aStorysViewersAreItsOwnersAlone() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let s = try await Self.scene(parley, client)
            let image = try #require(try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: s.ann.accessToken)["id"] as? String)
            let posted = try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": "Hi"], token: s.ann.accessToken)
            let story = try #require((posted["story"] as? JSON)?["id"] as? String, "\(posted.text)")
            #expect(try await client.call(.post, "/v1/stories/\(story)/views", token: s.bo.accessToken).status == .noContent, "a friend may view it")
            #expect(Self.refused(try await client.call(.get, "/v1/stories/\(story)/viewers", token: s.bo.accessToken)))
            #expect(Self.refused(try await client.call(.delete, "/v1/stories/\(story)", token: s.bo.accessToken)))
            let mine = try await client.call(.get, "/v1/stories/mine", token: s.bo.accessToken)["stories"] as? [JSON] ?? []
            #expect(mine.isEmpty)
            let viewers = try await client.call(.get, "/v1/stories/\(story)/viewers", token: s.ann.accessToken)["viewers"] as? [JSON] ?? []
            #expect(viewers.count == 1, "the story is still there with its one view")
        }
    }

    @Test func aFriendRequestToSomeoneElseIsNotTheirsToAnswer() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            let sent = try await client.call(.post, "/v1/friends/requests", json: ["userId": cy.id], token: ann.accessToken)
            let request = try #require((sent["request"] as? JSON)?["id"] as? String, "\(sent.text)")
            for (method, path) in [(HTTPRequest.Method.post, "accept"), (.post, "decline"), (.delete, "")] {
                let reply = try await client.call(method, "/v1/friends/requests/\(request)" + (path.isEmpty ? "" : "/\(path)"), token: bo.accessToken)
                #expect(Self.refused(reply), "\(method) \(path) as Bo: \(reply.status) \(reply.text)")
            }
            for direction in ["incoming", "outgoing"] {
                let listed = try await client.call(.get, "/v1/friends/requests?direction=\(direction)", token: bo.accessToken)["requests"] as? [JSON] ?? []
                #expect(!listed.contains { $0["id"] as? String == request })
            }
            let pending = try await client.call(.get, "/v1/friends/requests?direction=incoming", token: cy.accessToken)["requests"] as? [JSON] ?? []
            #expect(pending.contains { $0["id"] as? String == request }, "the request still waits for Cy")
        }
    }

    @Test func aCallBetweenTwoOthersIsNotTheirs() async throws {
        let parley = try await TestParley.start { $0.ringSeconds = 1 }
        try await parley.test(.live) { client in
            let s = try await Self.scene(parley, client)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: s.ann.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: s.bo.accessToken)
            defer { annSocket.close(); boSocket.close() }
            let call = try #require(try await CallSignallingTests.invite(annSocket, s.cy)["callId"] as? String)
            #expect(try await boSocket.command("call.accept", ["callId": call, "sdp": CallSignallingTests.offer]).ok == false)
            #expect(try await boSocket.command("call.hangup", ["callId": call]).ok == false)
            #expect(try await annSocket.next { $0.type == "call.ended" }["reason"] as? String == "no_answer", "the call rang out untouched")
            let annCalls = try await client.call(.get, "/v1/calls", token: s.ann.accessToken)["calls"] as? [JSON] ?? []
            #expect(annCalls.contains { $0["id"] as? String == call })
            let boCalls = try await client.call(.get, "/v1/calls", token: s.bo.accessToken)["calls"] as? [JSON] ?? []
            #expect(!boCalls.contains { $0["id"] as? String == call })
            #expect(Self.refused(try await client.call(.delete, "/v1/calls/echo/\(call)", token: s.bo.accessToken)))
        }
    }
}

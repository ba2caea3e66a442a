import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Blocks hold everywhere (Signal's rules): in a group both still share, the blocker gets none of
/// the blocked person's messages, typing or read marks; the blocked person sees neither the
/// blocker's picture nor status; neither can add the other to a group; a call between them ends
/// at once.
@Suite struct BlocksEverywhereTests {
    typealias Scene = CallSignallingTests.Scene

    /// Cy's group with Ann and Bo; Ann has a status and a picture; then Ann blocks Bo.
    static func groupThenBlock(_ parley: TestParley, _ client: some TestClientProtocol) async throws -> (Scene, group: String) {
        let scene = try await CallSignallingTests.scene(parley, client)
        let created = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "Trip", "memberIds": [scene.ann.id, scene.bo.id]],
                                            token: scene.cy.accessToken)
        let group = try #require((created["dialog"] as? JSON)?["id"] as? String, "\(created)")
        #expect(try await client.call(.patch, "/v1/me", json: ["status": "Hiking"], token: scene.ann.accessToken).status == .ok)
        let avatar = try await client.call(.put, "/v1/me/avatar", raw: TestImages.png, token: scene.ann.accessToken,
                                           headers: [.contentType: "image/png"])
        #expect(avatar.status == .ok, "\(avatar)")
        #expect(try await client.call(.put, "/v1/blocks/\(scene.bo.id)", token: scene.ann.accessToken).status.code < 300)
        return (scene, group)
    }

    @Test func inASharedGroupTheBlockerHearsNothingFromTheBlocked() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (scene, group) = try await Self.groupThenBlock(parley, client)
            defer { scene.close() }
            let sent = try await scene.boSocket.command("message.send", ["dialogId": group, "clientMessageId": "b1", "kind": "text", "text": "hi all"])
            #expect(sent.ok == true, "\(sent)")
            let messageID = try #require((sent["message"] as? JSON)?["id"] as? String)
            #expect(try await scene.cySocket.next { $0.type == "message.new" }["message"] != nil, "Cy still gets it")
            #expect(await !scene.annSocket.receives { $0.type == "message.new" }, "Ann does not")
            #expect(try await client.history(scene.cy, group).map { $0["id"] as? String } == [messageID])
            #expect(try await client.history(scene.ann, group).isEmpty, "nor is it in Ann's history")

            _ = try await scene.boSocket.command("typing", ["dialogId": group])
            #expect(try await scene.cySocket.next { $0.type == "typing" }["userId"] as? String == scene.bo.id)
            #expect(await !scene.annSocket.receives { $0.type == "typing" })

            // Cy writes; Bo reads it: Cy sees the read mark, Ann does not.
            let cys = try await scene.cySocket.command("message.send", ["dialogId": group, "clientMessageId": "c1", "kind": "text", "text": "yo"])
            let cyMessage = try #require((cys["message"] as? JSON)?["id"] as? String)
            #expect(try await scene.annSocket.next { $0.type == "message.new" }["message"] != nil, "Ann hears Cy")
            #expect(try await scene.boSocket.command("message.read", ["dialogId": group, "upToMessageId": cyMessage]).ok == true)
            #expect(try await scene.cySocket.next { $0.type == "message.read" }["userId"] as? String == scene.bo.id)
            #expect(await !scene.annSocket.receives { $0.type == "message.read" && $0["userId"] as? String == scene.bo.id })

            // Ann still reaches Bo in the group (a block shields the blocker, as in Signal).
            _ = try await scene.annSocket.command("message.send", ["dialogId": group, "clientMessageId": "a1", "kind": "text", "text": "hm"])
            #expect(try await scene.boSocket.next { $0.type == "message.new" && ($0["message"] as? JSON)?["senderId"] as? String == scene.ann.id }["message"] != nil)
        }
    }

    /// The dialog list agrees with the history: in a shared group the blocked person's messages
    /// are neither unread for the blocker nor the group's last message; for everyone else they are.
    @Test func theBlockersDialogListLeavesOutTheBlockedsMessages() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            try await client.befriend(cy, ann)
            try await client.befriend(cy, bo)
            let created = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "Trip", "memberIds": [ann.id, bo.id]],
                                                token: cy.accessToken)
            let group = try #require((created["dialog"] as? JSON)?["id"] as? String, "\(created)")
            #expect(try await client.call(.put, "/v1/blocks/\(bo.id)", token: ann.accessToken).status.code < 300)

            func groupRow(_ user: TestUser) async throws -> JSON {
                let list = try await client.call(.get, "/v1/dialogs", token: user.accessToken)
                return try #require((list["dialogs"] as? [JSON])?.first { $0["id"] as? String == group }, "\(list)")
            }
            func lastText(_ row: JSON) -> String? { (row["lastMessage"] as? JSON)?["text"] as? String }

            #expect(try await client.sendText(bo, group, "one").status == .created)
            #expect(try await client.sendText(cy, group, "from Cy").status == .created)
            #expect(try await client.sendText(bo, group, "two").status == .created)
            #expect(try await client.sendText(bo, group, "three").status == .created)

            let annsRow = try await groupRow(ann)
            #expect(annsRow["unreadCount"] as? Int == 1, "only Cy's message is unread for Ann")
            #expect(lastText(annsRow) == "from Cy", "and it is the last one she sees")
            let cysRow = try await groupRow(cy)
            #expect(cysRow["unreadCount"] as? Int == 2, "Cy blocked nobody: Bo's two after her own message are unread")
            #expect(lastText(cysRow) == "three")

            // Ann reads what she sees; Bo writes on: the group stays read for her.
            let cysMessage = try #require(try await client.history(ann, group).first?["id"] as? String)
            #expect(try await client.call(.post, "/v1/dialogs/\(group)/read", json: ["upToMessageId": cysMessage], token: ann.accessToken).status == .noContent)
            #expect(try await client.sendText(bo, group, "four").status == .created)
            #expect(try await groupRow(ann)["unreadCount"] as? Int == 0)
            // Unblocked, Bo's messages since her read mark count again.
            #expect(try await client.call(.delete, "/v1/blocks/\(bo.id)", token: ann.accessToken).status.code < 300)
            #expect(try await groupRow(ann)["unreadCount"] as? Int == 3)
            #expect(lastText(try await groupRow(ann)) == "four")
        }
    }

    @Test func theBlockedSeeNeitherPictureNorStatusAndNeitherAddsTheOther() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (scene, group) = try await Self.groupThenBlock(parley, client)
            defer { scene.close() }
            func annAsSeenBy(_ viewer: TestUser) async throws -> JSON? {
                let dialog = try await client.call(.get, "/v1/dialogs/\(group)", token: viewer.accessToken)["dialog"] as? JSON
                return (dialog?["members"] as? [JSON])?.first { $0["id"] as? String == scene.ann.id }
            }
            let byCy = try #require(try await annAsSeenBy(scene.cy))
            #expect(byCy["status"] as? String == "Hiking" && byCy["avatarUrl"] as? String != nil)
            let byBo = try #require(try await annAsSeenBy(scene.bo))
            #expect(byBo["status"] as? String == "" && byBo["avatarUrl"] == nil, "\(byBo)")
            #expect(byBo["name"] as? String == "Ann", "the name stays")

            let bosGroup = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "X", "memberIds": [scene.ann.id]],
                                                 token: scene.bo.accessToken)
            #expect(bosGroup.status.code >= 400)
            let annAdds = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "Y", "memberIds": [scene.bo.id]],
                                                token: scene.ann.accessToken)
            #expect(annAdds.status.code >= 400)
        }
    }

    @Test(arguments: ["ringing", "active"])
    func aCallBetweenThemEndsAtOnceWhenEitherBlocks(_ state: String) async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let scene = try await CallSignallingTests.scene(parley, client)
            defer { scene.close() }
            let id = try #require(try await CallSignallingTests.invite(scene.annSocket, scene.bo)["callId"] as? String)
            if state == "active" {
                #expect(try await scene.boSocket.command("call.accept", ["callId": id, "sdp": CallSignallingTests.offer]).ok == true)
            }
            // Bo, the callee, blocks Ann.
            #expect(try await client.call(.put, "/v1/blocks/\(scene.ann.id)", token: scene.bo.accessToken).status.code < 300)
            for socket in [scene.annSocket, scene.boSocket] {
                let ended = try await socket.next(timeout: .seconds(2)) { $0.type == "call.ended" && $0["reason"] as? String != "answered_elsewhere" }
                #expect(ended["callId"] as? String == id)
                #expect(ended["reason"] as? String == (state == "active" ? "hangup" : "declined"))
            }
            #expect(await parley.parts.relay.counters().legs == 0)
        }
    }
}

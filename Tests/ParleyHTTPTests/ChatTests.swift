import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct ChatTests {
    @Test func privateMessagesArriveLiveWithReceiptsAndTyping() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            #expect(try await client.privateDialog(bo, with: ann) == dialog, "one private dialog per pair")

            let annPad = try await client.logIn("ann@example.com")
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (padSocket, _) = try await RealtimeClient.connect(port: client.port!, token: annPad.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { annSocket.close(); padSocket.close(); boSocket.close() }

            let reply = try await annSocket.command("message.send", ["dialogId": dialog, "clientMessageId": "c-1", "kind": "text", "text": "Hi Bo!"])
            #expect(reply.ok == true, "\(reply)")
            let sent = try #require(reply.message)
            let id = try #require(sent["id"] as? String)
            #expect(sent["senderId"] as? String == ann.id)
            #expect(sent["readBy"] as? [String] == [])
            for device in [boSocket, padSocket] {
                let event = try await device.next { $0.type == "message.new" }
                #expect(event.message?["id"] as? String == id)
                #expect(event.message?["text"] as? String == "Hi Bo!")
                #expect(event.seq != nil)
            }

            // The same clientMessageId again: the same message, and nobody is told twice.
            let again = try await annSocket.command("message.send", ["dialogId": dialog, "clientMessageId": "c-1", "kind": "text", "text": "Hi Bo!"])
            #expect(again.message?["id"] as? String == id)
            #expect(await boSocket.receives { $0.type == "message.new" } == false)

            #expect(try await boSocket.command("typing", ["dialogId": dialog]).ok == true)
            let typing = try await annSocket.next { $0.type == "typing" }
            #expect(typing["userId"] as? String == bo.id)
            #expect(typing.seq == nil, "typing is not stored")

            #expect(try await boSocket.command("message.read", ["dialogId": dialog, "upToMessageId": id]).ok == true)
            let receipt = try await annSocket.next { $0.type == "message.read" }
            #expect(receipt["userId"] as? String == bo.id)
            #expect(receipt["upToMessageId"] as? String == id)
            let history = try await client.history(ann, dialog)
            #expect(history.first?["readBy"] as? [String] == [bo.id])
        }
    }

    /// No PostgreSQL text holds the NUL character: a text with one is refused as it comes in, over
    /// REST and over the socket, on either engine (on PostgreSQL it would fail at the database).
    @Test func aTextWithTheNulCharacterIsRefused() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, _, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let posted = try await client.sendText(ann, dialog, "a\u{0}b")
            #expect(posted.status == .badRequest && posted.errorCode == "invalid_json", "\(posted.text)")
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { socket.close() }
            let reply = try await socket.command("message.send", ["dialogId": dialog, "clientMessageId": "c-1", "kind": "text", "text": "a\u{0}b"])
            #expect(reply.ok == false && reply.errorCode == "invalid_json", "\(reply)")
            #expect(try await socket.command("message.send", ["dialogId": dialog, "clientMessageId": "c-1", "kind": "text", "text": "ab"]).ok == true)
            #expect(try await client.history(ann, dialog).count == 1)
            // In the address: a dialog id or a search that holds one.
            for path in ["/v1/dialogs/%00/messages", "/v1/users/search?q=ann%00", "/v1/dialogs/\(dialog)%00"] {
                let reply = try await client.call(.get, path, token: ann.accessToken)
                #expect(reply.status == .badRequest && reply.errorCode == "bad_request", "\(path): \(reply.text)")
            }
        }
    }

    @Test func theDialogListIsNewestFirstWithUnreadCounts() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            try await client.befriend(ann, cy)
            let withBo = try await client.privateDialog(ann, with: bo)
            let withCy = try await client.privateDialog(ann, with: cy)
            _ = try await client.sendText(bo, withBo, "one")
            parley.clock.advance(by: 1)
            _ = try await client.sendText(cy, withCy, "two")
            parley.clock.advance(by: 1)
            _ = try await client.sendText(bo, withBo, "three")
            let list = try await client.call(.get, "/v1/dialogs", token: ann.accessToken)["dialogs"] as? [JSON] ?? []
            #expect(list.compactMap { $0["id"] as? String } == [withBo, withCy])
            #expect(list.first?["name"] as? String == "Bo", "a private dialog takes the other person's name")
            #expect((list.first?["lastMessage"] as? JSON)?["text"] as? String == "three")
            #expect(list.first?["unreadCount"] as? Int == 2)
            #expect((list.first?["members"] as? [JSON])?.count == 2)

            let paged = try await client.call(.get, "/v1/dialogs?limit=1", token: ann.accessToken)
            let cursor = try #require(paged["nextCursor"] as? String)
            let second = try await client.call(.get, "/v1/dialogs?limit=1&cursor=\(cursor)", token: ann.accessToken)
            #expect((second["dialogs"] as? [JSON])?.first?["id"] as? String == withCy)
        }
    }

    @Test func groupsOfFriendsGrowShrinkAndAreRenamed() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let dee = try await client.signUp("Dee", "dee@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            try await client.befriend(ann, cy)
            try await client.befriend(ann, dee)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            let (cySocket, _) = try await RealtimeClient.connect(port: client.port!, token: cy.accessToken)
            let (deeSocket, _) = try await RealtimeClient.connect(port: client.port!, token: dee.accessToken)
            defer { boSocket.close(); cySocket.close(); deeSocket.close() }

            let created = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "Hikers", "memberIds": [bo.id, cy.id]], token: ann.accessToken)
            #expect(created.status == .created)
            let group = try #require((created["dialog"] as? JSON)?["id"] as? String)
            #expect(((created["dialog"] as? JSON)?["members"] as? [JSON])?.count == 3)
            let announced = try await cySocket.next { $0.type == "dialog.updated" }
            #expect((announced["dialog"] as? [String: Any])?["name"] as? String == "Hikers")

            _ = try await client.sendText(bo, group, "Saturday?")
            #expect(try await cySocket.next { $0.type == "message.new" }.message?["text"] as? String == "Saturday?")

            // Bo is not Dee's friend: he cannot add her. Ann can.
            let refused = try await client.call(.post, "/v1/dialogs/\(group)/members", json: ["userIds": [dee.id]], token: bo.accessToken)
            #expect(refused.errorCode == "not_a_friend")
            let added = try await client.call(.post, "/v1/dialogs/\(group)/members", json: ["userIds": [dee.id]], token: ann.accessToken)
            #expect(added.status == .ok)
            _ = try await deeSocket.next { $0.type == "dialog.updated" }
            #expect(try await client.history(dee, group).isEmpty == false, "newcomers see the group's history")

            #expect(try await client.call(.delete, "/v1/dialogs/\(group)/members/me", token: cy.accessToken).status == .noContent)
            _ = try await client.sendText(ann, group, "Cy left")
            #expect(try await deeSocket.next { $0.type == "message.new" }.message?["text"] as? String == "Cy left")
            #expect(await cySocket.receives { $0.type == "message.new" } == false)
            #expect(try await client.sendText(cy, group, "let me back").errorCode == "dialog_not_found")

            let renamed = try await client.call(.patch, "/v1/dialogs/\(group)", json: ["name": "Hill walkers"], token: dee.accessToken)
            #expect((renamed["dialog"] as? JSON)?["name"] as? String == "Hill walkers")
            let update = try await boSocket.next { $0.type == "dialog.updated" && (($0["dialog"] as? [String: Any])?["name"] as? String) == "Hill walkers" }
            #expect(update.seq != nil)
            #expect(try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": " ", "memberIds": [bo.id]], token: ann.accessToken).errorCode == "invalid_name")
        }
    }

    @Test func strangersAndBlockedUsersCannotTalkPrivately() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let stranger = try await client.call(.post, "/v1/dialogs", json: ["type": "private", "userId": bo.id], token: ann.accessToken)
            #expect(stranger.status == .forbidden)
            #expect(stranger.errorCode == "friendship_required")

            try await client.befriend(ann, bo)
            let dialog = try await client.privateDialog(ann, with: bo)
            #expect(try await client.sendText(ann, dialog, "hello").status == .created)
            _ = try await client.call(.put, "/v1/blocks/\(ann.id)", token: bo.accessToken)
            let blocked = try await client.sendText(ann, dialog, "are you there?")
            #expect(blocked.status == .forbidden)
            #expect(blocked.errorCode == "blocked")
            #expect(try await client.call(.post, "/v1/dialogs", json: ["type": "private", "userId": bo.id], token: ann.accessToken).errorCode == "blocked")
            #expect(try await client.history(bo, dialog).count == 1, "nothing was stored")
        }
    }

    @Test func aDeviceThatMissedMessagesGetsExactlyThemThroughSync() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            _ = try await client.sendText(ann, dialog, "before")
            let last = try await boSocket.next { $0.type == "message.new" }
            boSocket.close()
            try await Task.sleep(for: .milliseconds(100))

            var missed: [String] = []
            for n in 1...3 { missed.append(try #require((try await client.sendText(ann, dialog, "while away \(n)")["message"] as? JSON)?["id"] as? String)) }

            let (back, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { back.close() }
            let reply = try await back.command("sync", ["since": last.seq ?? 0])
            #expect(reply["count"] as? Int == 3)
            let replayed = await back.inbox { $0.type == "message.new" }
            #expect(replayed.compactMap { $0.message?["id"] as? String } == missed)
        }
    }

    @Test func deletingAConversationHidesItUntilSomeoneWritesAgain() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            _ = try await client.sendText(bo, dialog, "old news")
            #expect(try await client.call(.delete, "/v1/dialogs/\(dialog)", token: ann.accessToken).status == .noContent)
            #expect((try await client.call(.get, "/v1/dialogs", token: ann.accessToken)["dialogs"] as? [JSON])?.isEmpty == true)
            #expect(try await client.history(bo, dialog).count == 1, "only Ann's copy is gone")
            _ = try await client.sendText(bo, dialog, "fresh")
            let list = try await client.call(.get, "/v1/dialogs", token: ann.accessToken)["dialogs"] as? [JSON] ?? []
            #expect(list.count == 1)
            #expect(try await client.history(ann, dialog).compactMap { $0["text"] as? String } == ["fresh"])
        }
    }

    @Test func historyPagesBackwardsAndMessagesAreChecked() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            for n in 1...5 { _ = try await client.sendText(ann, dialog, "m\(n)") }
            let first = try await client.call(.get, "/v1/dialogs/\(dialog)/messages?limit=2", token: bo.accessToken)
            #expect((first["messages"] as? [JSON])?.compactMap { $0["text"] as? String } == ["m5", "m4"])
            let cursor = try #require(first["nextCursor"] as? String)
            let second = try await client.history(bo, dialog, query: "?limit=2&before=\(cursor)")
            #expect(second.compactMap { $0["text"] as? String } == ["m3", "m2"])

            #expect(try await client.sendText(ann, dialog, "   ").errorCode == "empty_message")
            #expect(try await client.sendText(ann, dialog, String(repeating: "x", count: 4001)).errorCode == "text_too_long")
            let wrongKind = try await client.call(.post, "/v1/dialogs/\(dialog)/messages", json: ["clientMessageId": "x", "kind": "sticker", "text": "hi"], token: ann.accessToken)
            #expect(wrongKind.status == .badRequest)
            let noAttachment = try await client.call(.post, "/v1/dialogs/\(dialog)/messages", json: ["clientMessageId": "y", "kind": "image"], token: ann.accessToken)
            #expect(noAttachment.errorCode == "attachment_required")
            let outsider = try await client.signUp("Eve", "eve@example.com", outbox: parley.outbox)
            #expect(try await client.call(.get, "/v1/dialogs/\(dialog)/messages", token: outsider.accessToken).errorCode == "dialog_not_found")
        }
    }

    @Test func attachmentsAreRecognisedAndOnlyMembersFetchThem() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let eve = try await client.signUp("Eve", "eve@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            let dialog = try await client.privateDialog(ann, with: bo)

            let upload = try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: ann.accessToken, headers: [.contentType: "application/octet-stream"])
            #expect(upload.status == .created, "\(upload.text)")
            #expect(upload["kind"] as? String == "image")
            #expect(upload["contentType"] as? String == "image/png")
            #expect(upload["size"] as? Int == TestImages.png.count)
            let id = try #require(upload["id"] as? String)
            #expect(try await client.call(.get, "/v1/attachments/\(id)", token: bo.accessToken).status == .notFound, "not shared yet")

            let sent = try await client.call(.post, "/v1/dialogs/\(dialog)/messages", json: ["clientMessageId": "pic", "kind": "image", "attachmentId": id], token: ann.accessToken)
            #expect(sent.status == .created)
            #expect(((sent["message"] as? JSON)?["attachment"] as? JSON)?["url"] as? String == "http://parley.test/v1/attachments/\(id)")
            let fetched = try await client.call(.get, "/v1/attachments/\(id)", token: bo.accessToken)
            #expect(fetched.bytes == TestImages.png)
            #expect(fetched.headers[.contentType] == "image/png")
            #expect(fetched.headers[.acceptRanges] == "bytes")
            // Range requests, as a media player makes them.
            let size = TestImages.png.count
            let head = try await client.call(.get, "/v1/attachments/\(id)", token: bo.accessToken, headers: [.range: "bytes=0-7"])
            #expect(head.status == .partialContent)
            #expect(head.bytes == Array(TestImages.png[0...7]))
            #expect(head.headers[.contentRange] == "bytes 0-7/\(size)")
            let tail = try await client.call(.get, "/v1/attachments/\(id)", token: bo.accessToken, headers: [.range: "bytes=-4"])
            #expect(tail.status == .partialContent && tail.bytes == Array(TestImages.png.suffix(4)))
            let past = try await client.call(.get, "/v1/attachments/\(id)", token: bo.accessToken, headers: [.range: "bytes=\(size)-"])
            #expect(past.status == .rangeNotSatisfiable && past.errorCode == "range_not_satisfiable")
            #expect(past.headers[.contentRange] == "bytes */\(size)")
            #expect(try await client.call(.get, "/v1/attachments/\(id)", token: eve.accessToken, headers: [.range: "bytes=0-7"]).status == .notFound)
            // For a client that cannot set headers (AsyncImage): the access token in the query, reads only.
            let byQuery = try await client.call(.get, "/v1/attachments/\(id)?token=\(bo.accessToken)")
            #expect(byQuery.status == .ok && byQuery.bytes == TestImages.png)
            #expect(try await client.call(.get, "/v1/attachments/\(id)?token=garbage").status == .unauthorized)
            #expect(try await client.call(.get, "/v1/attachments/\(id)?token=\(eve.accessToken)").status == .notFound)
            let uploadByQuery = try await client.call(.post, "/v1/attachments?token=\(ann.accessToken)", raw: TestImages.png)
            #expect(uploadByQuery.status == .unauthorized, "writes need the header")
            #expect(try await client.call(.get, "/v1/attachments/\(id)", token: eve.accessToken).status == .notFound)

            let asVideo = try await client.call(.post, "/v1/dialogs/\(dialog)/messages", json: ["clientMessageId": "v", "kind": "video", "attachmentId": id], token: ann.accessToken)
            #expect(asVideo.errorCode == "attachment_kind_mismatch")
            let others = try await client.call(.post, "/v1/dialogs/\(dialog)/messages", json: ["clientMessageId": "z", "kind": "image", "attachmentId": id], token: bo.accessToken)
            #expect(others.errorCode == "attachment_not_found", "only the uploader sends an attachment")
            let garbage = try await client.call(.post, "/v1/attachments", raw: Array("just text".utf8), token: ann.accessToken)
            #expect(garbage.status == .unsupportedMediaType)
            let big = try await client.call(.post, "/v1/attachments", raw: TestImages.png + [UInt8](repeating: 0, count: 10 << 20), token: ann.accessToken)
            #expect(big.status == .contentTooLarge)
        }
    }
}

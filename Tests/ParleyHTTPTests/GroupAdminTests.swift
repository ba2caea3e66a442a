import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Groups have an owner (seed 002): they remove members, delete the group for everyone, and hand
/// it on when they leave. Messages are forwarded without uploading again, and places are shared.
@Suite struct GroupAdminTests {
    /// Ann's group with Bo, Cy and Dee (Ann is everyone's friend), joined in that order.
    static func annsGroup(_ client: some TestClientProtocol, _ parley: TestParley) async throws
        -> (ann: TestUser, bo: TestUser, cy: TestUser, dee: TestUser, group: String)
    {
        let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
        let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
        let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
        let dee = try await client.signUp("Dee", "dee@example.com", outbox: parley.outbox)
        for friend in [bo, cy, dee] { try await client.befriend(ann, friend) }
        let created = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "Hikers", "memberIds": [bo.id]],
                                            token: ann.accessToken)
        let group = try #require((created["dialog"] as? JSON)?["id"] as? String, "\(created.text)")
        #expect((created["dialog"] as? JSON)?["ownerId"] as? String == ann.id, "the creator owns the group")
        parley.clock.advance(by: 1)
        _ = try await client.call(.post, "/v1/dialogs/\(group)/members", json: ["userIds": [cy.id]], token: ann.accessToken)
        parley.clock.advance(by: 1)
        _ = try await client.call(.post, "/v1/dialogs/\(group)/members", json: ["userIds": [dee.id]], token: ann.accessToken)
        return (ann, bo, cy, dee, group)
    }

    @Test func theOwnerRemovesAMemberWhoThenLosesAccess() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, cy, dee, group) = try await Self.annsGroup(client, parley)
            let photo = try #require(try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: ann.accessToken)["id"] as? String)
            _ = try await client.call(.post, "/v1/dialogs/\(group)/messages",
                                      json: ["clientMessageId": "p", "kind": "image", "attachmentId": photo], token: ann.accessToken)
            #expect(try await client.call(.get, "/v1/attachments/\(photo)", token: cy.accessToken).status == .ok)
            let (cySocket, _) = try await RealtimeClient.connect(port: client.port!, token: cy.accessToken)
            defer { cySocket.close() }

            let notOwner = try await client.call(.delete, "/v1/dialogs/\(group)/members/\(cy.id)", token: bo.accessToken)
            #expect(notOwner.status == .forbidden && notOwner.errorCode == "not_group_owner", "\(notOwner.text)")
            #expect(try await client.call(.delete, "/v1/dialogs/\(group)/members/\(cy.id)", token: ann.accessToken).status == .noContent)
            let told = try await cySocket.next { $0.type == "dialog.updated" }
            #expect(Set((told["dialog"] as? [String: Any])?["memberIds"] as? [String] ?? []) == [ann.id, bo.id, dee.id])

            #expect(try await client.call(.get, "/v1/dialogs/\(group)", token: cy.accessToken).errorCode == "dialog_not_found")
            #expect(try await client.history(cy, group).isEmpty)
            #expect(try await client.sendText(cy, group, "still here?").errorCode == "dialog_not_found")
            #expect(try await client.call(.get, "/v1/attachments/\(photo)", token: cy.accessToken).status == .notFound,
                    "the group's photos are no longer Cy's to fetch")
            let again = try await client.call(.delete, "/v1/dialogs/\(group)/members/\(cy.id)", token: ann.accessToken)
            #expect(again.errorCode == "member_not_found")
        }
    }

    @Test func ownershipPassesToTheLongestStandingMemberAndTheOwnerDeletesForEveryone() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, cy, dee, group) = try await Self.annsGroup(client, parley)
            _ = try await client.sendText(bo, group, "hello all")
            #expect(try await client.call(.delete, "/v1/dialogs/\(group)/members/me", token: ann.accessToken).status == .noContent)
            let seen = try await client.call(.get, "/v1/dialogs/\(group)", token: cy.accessToken)
            #expect((seen["dialog"] as? JSON)?["ownerId"] as? String == bo.id, "Bo joined first: \(seen.text)")

            let byCy = try await client.call(.delete, "/v1/dialogs/\(group)?forEveryone=true", token: cy.accessToken)
            #expect(byCy.errorCode == "not_group_owner")
            let (deeSocket, _) = try await RealtimeClient.connect(port: client.port!, token: dee.accessToken)
            defer { deeSocket.close() }
            #expect(try await client.call(.delete, "/v1/dialogs/\(group)?forEveryone=true", token: bo.accessToken).status == .noContent)
            let deleted = try await deeSocket.next { $0.type == "dialog.deleted" }
            #expect(deleted["dialogId"] as? String == group && deleted.seq != nil)
            for user in [bo, cy, dee] {
                #expect(try await client.call(.get, "/v1/dialogs/\(group)", token: user.accessToken).errorCode == "dialog_not_found")
                let list = try await client.call(.get, "/v1/dialogs", token: user.accessToken)["dialogs"] as? [JSON] ?? []
                #expect(!list.contains { $0["id"] as? String == group })
            }
            let privateOne = try await client.privateDialog(ann, with: bo)
            let refused = try await client.call(.delete, "/v1/dialogs/\(privateOne)?forEveryone=true", token: ann.accessToken)
            #expect(refused.errorCode == "not_a_group")
        }
    }

    @Test func aForwardedImageIsReadableByTheNewDialogsMembersOnly() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let (ann, bo, cy, dee, group) = try await Self.annsGroup(client, parley)
            // Bo's photo in the group; Cy forwards it to Ann privately. Dee, in the group, still sees it there.
            let photo = try #require(try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: bo.accessToken)["id"] as? String)
            let original = try await client.call(.post, "/v1/dialogs/\(group)/messages",
                                                 json: ["clientMessageId": "p", "kind": "image", "attachmentId": photo], token: bo.accessToken)
            let originalID = try #require((original["message"] as? JSON)?["id"] as? String)
            let eve = try await client.signUp("Eve", "eve@example.com", outbox: parley.outbox)
            try await client.befriend(cy, eve)
            let withEve = try await client.privateDialog(cy, with: eve)
            #expect(try await client.call(.get, "/v1/attachments/\(photo)", token: eve.accessToken).status == .notFound)

            let forwarded = try await client.call(.post, "/v1/dialogs/\(withEve)/messages",
                                                  json: ["clientMessageId": "f", "kind": "image", "forwardMessageId": originalID], token: cy.accessToken)
            #expect(forwarded.status == .created, "\(forwarded.text)")
            let message = try #require(forwarded["message"] as? JSON)
            #expect((message["attachment"] as? JSON)?["id"] as? String == photo, "the same stored file, not uploaded again")
            #expect((message["forwardedFrom"] as? JSON)?["senderId"] as? String == bo.id)
            #expect((message["forwardedFrom"] as? JSON)?["messageId"] as? String == originalID)
            let fetched = try await client.call(.get, "/v1/attachments/\(photo)", token: eve.accessToken)
            #expect(fetched.status == .ok && fetched.bytes == TestImages.png, "Eve, in the new dialog, reads it")
            #expect(try await client.call(.get, "/v1/attachments/\(photo)", token: ann.accessToken).status == .ok)
            _ = dee

            // Only what one can read is forwarded: Eve is not in the group.
            let stranger = try await client.call(.post, "/v1/dialogs/\(withEve)/messages",
                                                 json: ["clientMessageId": "g", "kind": "image", "forwardMessageId": originalID], token: eve.accessToken)
            #expect(stranger.errorCode == "message_not_found")
            let wrongKind = try await client.call(.post, "/v1/dialogs/\(withEve)/messages",
                                                  json: ["clientMessageId": "h", "kind": "video", "forwardMessageId": originalID], token: cy.accessToken)
            #expect(wrongKind.errorCode == "attachment_kind_mismatch")
            let frank = try await client.signUp("Frank", "frank@example.com", outbox: parley.outbox)
            #expect(try await client.call(.get, "/v1/attachments/\(photo)", token: frank.accessToken).status == .notFound)
            _ = ann
        }
    }

    @Test func locationsAreSharedWithCheckedCoordinates() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let sent = try await client.call(.post, "/v1/dialogs/\(dialog)/messages", json: [
                "clientMessageId": "l", "kind": "location",
                "location": ["latitude": 51.5007, "longitude": -0.1246, "name": "  Big Ben "] as JSON,
            ], token: ann.accessToken)
            #expect(sent.status == .created, "\(sent.text)")
            let place = try #require((sent["message"] as? JSON)?["location"] as? JSON)
            #expect(place["latitude"] as? Double == 51.5007 && place["longitude"] as? Double == -0.1246)
            #expect(place["name"] as? String == "Big Ben")
            let seen = try #require(try await client.history(bo, dialog).first)
            #expect((seen["location"] as? JSON)?["name"] as? String == "Big Ben" && seen["kind"] as? String == "location")

            for bad: JSON in [["latitude": 91, "longitude": 0], ["latitude": 0, "longitude": -180.5],
                              ["latitude": 0, "longitude": 0, "name": String(repeating: "x", count: 201)]] {
                let refused = try await client.call(.post, "/v1/dialogs/\(dialog)/messages",
                                                    json: ["clientMessageId": UUID().uuidString, "kind": "location", "location": bad], token: ann.accessToken)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "invalid_location", "\(bad): \(refused.text)")
            }
            let missing = try await client.call(.post, "/v1/dialogs/\(dialog)/messages",
                                                json: ["clientMessageId": "m", "kind": "location"], token: ann.accessToken)
            #expect(missing.errorCode == "invalid_location")
            let mixed = try await client.call(.post, "/v1/dialogs/\(dialog)/messages",
                                              json: ["clientMessageId": "n", "kind": "text", "text": "hi", "location": ["latitude": 1, "longitude": 2] as JSON],
                                              token: ann.accessToken)
            #expect(mixed.errorCode == "attachment_kind_mismatch")

            // A place is forwarded like anything else.
            let placeID = try #require((sent["message"] as? JSON)?["id"] as? String)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            try await client.befriend(bo, cy)
            let withCy = try await client.privateDialog(bo, with: cy)
            let onward = try await client.call(.post, "/v1/dialogs/\(withCy)/messages",
                                               json: ["clientMessageId": "o", "kind": "location", "forwardMessageId": placeID], token: bo.accessToken)
            #expect(((onward["message"] as? JSON)?["location"] as? JSON)?["name"] as? String == "Big Ben", "\(onward.text)")
        }
    }
}

extension GroupAdminTests {
    @Test("group changes have a per-user rate (each tells every member); leaving is never refused")
    func groupChangesHaveAPerUserRate() async throws {
        // The group's creation and its two additions take three of the five.
        let parley = try await TestParley.start { $0.groupChangesPerHour = 5 }
        try await parley.test { client in
            let (ann, bo, _, _, group) = try await Self.annsGroup(client, parley)
            #expect(try await client.call(.patch, "/v1/dialogs/\(group)", json: ["name": "Walkers"], token: ann.accessToken).status == .ok)
            #expect(try await client.call(.patch, "/v1/dialogs/\(group)", json: ["name": "Ramblers"], token: ann.accessToken).status == .ok)
            let limited = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "More", "memberIds": [bo.id]],
                                                token: ann.accessToken)
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited", "\(limited.text)")
            #expect(try await client.call(.patch, "/v1/dialogs/\(group)", json: ["name": "Bo's"], token: bo.accessToken).status == .ok,
                    "another member has a share of their own")
            #expect(try await client.call(.delete, "/v1/dialogs/\(group)/members/me", token: ann.accessToken).status == .noContent,
                    "leaving is never refused")
        }
    }
}

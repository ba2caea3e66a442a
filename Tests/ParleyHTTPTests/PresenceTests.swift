import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Presence (seed 002) and live profiles (seed 001): `online` while any device holds the realtime
/// socket, `lastSeen` when the last one closed, shown as each user's privacy says; a new name,
/// status or picture reaches friends and chat members at once as `user.updated`.
@Suite struct PresenceTests {
    static func person(_ id: String, in reply: Reply, list: String = "friends") -> JSON? {
        (reply[list] as? [JSON])?.first { $0["id"] as? String == id }
    }

    @Test func aFriendSeesPresenceAndTheSettingHidesIt() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, _) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { annSocket.close() }

            let boPhone = try await client.logIn("bo@example.com")
            let (phone, _) = try await RealtimeClient.connect(port: client.port!, token: boPhone.accessToken)
            let cameOnline = try await annSocket.next { $0.type == "user.updated" }
            #expect((cameOnline["user"] as? [String: Any])?["online"] as? Bool == true)
            let (pad, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            let seen = try #require(Self.person(bo.id, in: try await client.call(.get, "/v1/friends", token: ann.accessToken)))
            #expect(seen["online"] as? Bool == true && seen["lastSeen"] == nil, "\(seen)")
            let stranger = try await client.call(.get, "/v1/users/\(bo.id)", token: cy.accessToken)
            #expect(stranger.user["online"] == nil && stranger.user["lastSeen"] == nil, "friends only by default: \(stranger.text)")

            // Online while any device is: the phone goes, the pad stays.
            phone.close()
            #expect(await annSocket.receives(within: .milliseconds(500)) { $0.type == "user.updated" } == false)
            #expect(Self.person(bo.id, in: try await client.call(.get, "/v1/friends", token: ann.accessToken))?["online"] as? Bool == true)
            parley.clock.advance(by: 60)
            pad.close()
            let wentAway = try await annSocket.next { $0.type == "user.updated" }
            let away = try #require(wentAway["user"] as? [String: Any])
            #expect(away["online"] as? Bool == false)
            let lastSeen = try #require(away["lastSeen"] as? String, "\(away)")
            let formatter = ISO8601DateFormatter()
            #expect(formatter.date(from: lastSeen) == parley.clock.now(), "the moment the last device went")
            let later = try #require(Self.person(bo.id, in: try await client.call(.get, "/v1/friends", token: ann.accessToken)))
            #expect(later["online"] as? Bool == false && later["lastSeen"] as? String == lastSeen)
            let own = try await client.call(.get, "/v1/me", token: bo.accessToken)
            #expect(own.user["lastSeen"] as? String == lastSeen, "one sees one's own: \(own.text)")

            // Nobody: not even a friend sees it, in lists or events.
            let hidden = try await client.call(.put, "/v1/me/privacy", json: ["presenceVisibleTo": "nobody"], token: bo.accessToken)
            #expect(hidden["presenceVisibleTo"] as? String == "nobody")
            let none = try #require(Self.person(bo.id, in: try await client.call(.get, "/v1/friends", token: ann.accessToken)))
            #expect(none["online"] == nil && none["lastSeen"] == nil, "\(none)")
            let (again, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { again.close() }
            let quiet = try await annSocket.next { $0.type == "user.updated" }
            #expect((quiet["user"] as? [String: Any])?["online"] == nil, "\(quiet)")

            // Everyone: a stranger sees it too.
            _ = try await client.call(.put, "/v1/me/privacy", json: ["presenceVisibleTo": "everyone"], token: bo.accessToken)
            #expect(try await client.call(.get, "/v1/users/\(bo.id)", token: cy.accessToken).user["online"] as? Bool == true)
        }
    }

    @Test func aProfileChangeArrivesAsAnEventOnAnotherDeviceAndAtFriendsAndChatMembers() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, _) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let dee = try await client.signUp("Dee", "dee@example.com", outbox: parley.outbox)
            try await client.befriend(ann, cy)
            _ = try await client.call(.post, "/v1/dialogs", json: ["type": "group", "name": "Trip", "memberIds": [bo.id, cy.id]], token: ann.accessToken)

            let boPad = try await client.logIn("bo@example.com")
            let (padSocket, _) = try await RealtimeClient.connect(port: client.port!, token: boPad.accessToken)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (cySocket, _) = try await RealtimeClient.connect(port: client.port!, token: cy.accessToken)
            let (deeSocket, _) = try await RealtimeClient.connect(port: client.port!, token: dee.accessToken)
            defer { padSocket.close(); annSocket.close(); cySocket.close(); deeSocket.close() }
            // Let the presence events of the connections themselves pass.
            _ = try await padSocket.next { $0.type == "user.updated" && ($0["user"] as? [String: Any])?["id"] as? String == ann.id }
            _ = try await padSocket.next { $0.type == "user.updated" && ($0["user"] as? [String: Any])?["id"] as? String == cy.id }

            let changed = try await client.call(.patch, "/v1/me", json: ["name": "Bo Brave", "status": "On holiday"], token: bo.accessToken)
            #expect(changed.status == .ok, "\(changed.text)")
            let isBo: @Sendable (Frame) -> Bool = { $0.type == "user.updated" && ($0["user"] as? [String: Any])?["id"] as? String == bo.id }
            let onPad = try await padSocket.next(isBo)
            #expect((onPad["user"] as? [String: Any])?["status"] as? String == "On holiday", "Bo's other device")
            #expect(onPad.seq != nil, "stored: a device away gets it by sync")
            // Bo's being online (his pad's connection) may reach them first: the change is what is awaited.
            let renamed: @Sendable (Frame) -> Bool = { isBo($0) && ($0["user"] as? [String: Any])?["name"] as? String == "Bo Brave" }
            let atAnn = try await annSocket.next(renamed)
            #expect((atAnn["user"] as? [String: Any])?["name"] as? String == "Bo Brave", "a friend")
            let atCy = try await cySocket.next(renamed)
            let cyView = try #require(atCy["user"] as? [String: Any])
            #expect(cyView["name"] as? String == "Bo Brave" && cyView["status"] as? String == "On holiday", "a member of a shared group")
            #expect(cyView["online"] == nil, "Cy is not Bo's friend: no presence")
            #expect(await deeSocket.receives { $0.type == "user.updated" } == false, "a stranger hears nothing")

            #expect(try await client.call(.put, "/v1/me/avatar", raw: TestImages.png, token: bo.accessToken).status == .ok)
            let picture = try await annSocket.next { isBo($0) && ($0["user"] as? [String: Any])?["avatarUrl"] != nil }
            #expect(((picture["user"] as? [String: Any])?["avatarUrl"] as? String)?.contains("/v1/avatars/") == true)

            // A block: Ann hears nothing more of Bo's changes.
            #expect(try await client.call(.put, "/v1/blocks/\(ann.id)", token: bo.accessToken).status == .noContent)
            _ = try await client.call(.patch, "/v1/me", json: ["status": "back"], token: bo.accessToken)
            _ = try await cySocket.next { isBo($0) && ($0["user"] as? [String: Any])?["status"] as? String == "back" }
            #expect(await annSocket.receives { isBo($0) && ($0["user"] as? [String: Any])?["status"] as? String == "back" } == false)
        }
    }
}

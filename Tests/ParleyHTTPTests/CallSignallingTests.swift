import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Call signalling over the real gateway, with real offers (no media flows: the legs never
/// connect, which the relay only notices after 30 s).
@Suite struct CallSignallingTests {
    static let offer = try! String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ParleySDPTests/Fixtures/aiortc-1.16-offer.sdp").path, encoding: .utf8)

    struct Scene {
        let ann: TestUser, bo: TestUser, cy: TestUser
        let annSocket: RealtimeClient, boSocket: RealtimeClient, cySocket: RealtimeClient
        func close() { annSocket.close(); boSocket.close(); cySocket.close() }
    }

    /// Ann, Bo and Cy, all friends, each connected.
    static func scene(_ parley: TestParley, _ client: some TestClientProtocol) async throws -> Scene {
        let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
        let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
        let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
        try await client.befriend(ann, bo)
        try await client.befriend(ann, cy)
        try await client.befriend(bo, cy)
        let (a, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
        let (b, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
        let (c, _) = try await RealtimeClient.connect(port: client.port!, token: cy.accessToken)
        return Scene(ann: ann, bo: bo, cy: cy, annSocket: a, boSocket: b, cySocket: c)
    }

    static func invite(_ socket: RealtimeClient, _ to: TestUser, media: String = "audio") async throws -> Frame {
        try await socket.command("call.invite", ["to": to.id, "media": media, "sdp": offer])
    }

    @Test func strangersAndBlockedPeopleCannotCall() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let eve = try await client.signUp("Eve", "eve@example.com", outbox: parley.outbox)
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { socket.close() }
            #expect(try await Self.invite(socket, eve).errorCode == "friendship_required")
            try await client.befriend(ann, eve)
            _ = try await client.call(.put, "/v1/blocks/\(ann.id)", token: eve.accessToken)
            #expect(try await Self.invite(socket, eve).errorCode == "blocked")
            #expect(try await Self.invite(socket, ann).errorCode == "cannot_call_yourself")
            #expect(try await socket.command("call.invite", ["to": eve.id, "media": "hologram", "sdp": "x"]).errorCode == "invalid_field")
            #expect(await parley.parts.relay.counters().legs == 0)
        }
    }

    @Test func theFirstDeviceToAnswerWinsAndTheOthersHearAnsweredElsewhere() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let scene = try await Self.scene(parley, client)
            defer { scene.close() }
            let pad = try await client.logIn("bo@example.com")
            let (padSocket, _) = try await RealtimeClient.connect(port: client.port!, token: pad.accessToken)
            defer { padSocket.close() }
            let invite = try await Self.invite(scene.annSocket, scene.bo, media: "video")
            let id = try #require(invite["callId"] as? String)
            for device in [scene.boSocket, padSocket] {
                #expect(try await device.next { $0.type == "call.incoming" }["media"] as? String == "video")
            }
            let accepted = try await scene.boSocket.command("call.accept", ["callId": id, "sdp": Self.offer])
            #expect(accepted.ok == true && (accepted["sdp"] as? String)?.contains("a=ice-lite") == true)
            let elsewhere = try await padSocket.next { $0.type == "call.ended" }
            #expect(elsewhere["reason"] as? String == "answered_elsewhere")
            #expect(await scene.boSocket.receives { $0.type == "call.ended" } == false, "the answering phone is not told")
            #expect(try await padSocket.command("call.accept", ["callId": id, "sdp": Self.offer]).errorCode == "call_already_answered")
            #expect(try await scene.annSocket.next { $0.type == "call.accepted" }["callId"] as? String == id)
            // Syncing from scratch, the phone still never hears answered_elsewhere.
            _ = try await scene.boSocket.command("sync", ["since": 0])
            #expect(await scene.boSocket.receives { $0.type == "call.ended" } == false)

            #expect(try await scene.annSocket.command("call.media", ["callId": id, "audio": false, "video": true]).ok == true)
            let media = try await scene.boSocket.next { $0.type == "call.media" }
            #expect(media["audio"] as? Bool == false && media["video"] as? Bool == true && media["from"] as? String == scene.ann.id)
            #expect(await parley.parts.relay.counters().legs == 2)
            #expect(try await scene.boSocket.command("call.hangup", ["callId": id]).ok == true)
            #expect(try await scene.boSocket.command("call.hangup", ["callId": id]).errorCode == "call_ended", "hangup twice")
            #expect(await parley.parts.relay.counters().legs == 0)
        }
    }

    @Test func anUnansweredCallEndsAsAMissedCall() async throws {
        let parley = try await TestParley.start { $0.ringSeconds = 1 }
        try await parley.test(.live) { client in
            let scene = try await Self.scene(parley, client)
            defer { scene.close() }
            let id = try #require(try await Self.invite(scene.annSocket, scene.bo)["callId"] as? String)
            for socket in [scene.annSocket, scene.boSocket] {
                let ended = try await socket.next { $0.type == "call.ended" }
                #expect(ended["reason"] as? String == "no_answer")
                #expect(ended["durationSeconds"] as? Int == 0)
            }
            let bos = try await client.call(.get, "/v1/calls", token: scene.bo.accessToken)["calls"] as? [JSON]
            #expect(bos?.first?["id"] as? String == id)
            #expect(bos?.first?["outcome"] as? String == "missed")
            #expect(bos?.first?["direction"] as? String == "incoming")
            #expect((bos?.first?["peer"] as? JSON)?["name"] as? String == "Ann")
            let anns = try await client.call(.get, "/v1/calls", token: scene.ann.accessToken)["calls"] as? [JSON]
            #expect(anns?.first?["outcome"] as? String == "no_answer")
            let dialog = try await client.privateDialog(scene.ann, with: scene.bo)
            #expect((try await client.history(scene.bo, dialog).first?["call"] as? JSON)?["outcome"] as? String == "no_answer")
            #expect(try await scene.boSocket.command("call.accept", ["callId": id, "sdp": Self.offer]).errorCode == "call_ended", "accept after the end")
        }
    }

    @Test func aCalleeInACallIsBusyAndACancelledCallIsMissed() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let scene = try await Self.scene(parley, client)
            defer { scene.close() }
            let first = try #require(try await Self.invite(scene.annSocket, scene.bo)["callId"] as? String)
            let busy = try await Self.invite(scene.cySocket, scene.bo)
            #expect(busy.ok == true)
            #expect(busy["ended"] as? String == "busy")
            #expect(try await scene.cySocket.next { $0.type == "call.ended" }["reason"] as? String == "busy")
            #expect(try await Self.invite(scene.annSocket, scene.cy).errorCode == "already_in_call")

            #expect(try await scene.annSocket.command("call.hangup", ["callId": first]).ok == true)
            #expect(try await scene.boSocket.next { $0.type == "call.ended" }["reason"] as? String == "canceled")
            let bos = try await client.call(.get, "/v1/calls", token: scene.bo.accessToken)["calls"] as? [JSON] ?? []
            #expect(bos.compactMap { $0["outcome"] as? String }.sorted() == ["missed", "missed"], "Cy's busy call and Ann's canceled one")
            #expect(try await scene.boSocket.command("call.accept", ["callId": first, "sdp": Self.offer]).errorCode == "call_ended")
        }
    }

    @Test func twoFriendsCallingEachOtherAtOnceGetOneAnsweredCall() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let scene = try await Self.scene(parley, client)
            defer { scene.close() }
            let annCalls = try #require(try await Self.invite(scene.annSocket, scene.bo)["callId"] as? String)
            let boCalls = try await Self.invite(scene.boSocket, scene.ann)
            #expect(boCalls.ok == true, "\(boCalls)")
            #expect(boCalls["callId"] as? String == annCalls, "glare: one call")
            #expect((boCalls["sdp"] as? String)?.isEmpty == false)
            for socket in [scene.annSocket, scene.boSocket] {
                #expect(try await socket.next { $0.type == "call.accepted" }["callId"] as? String == annCalls)
            }
        }
    }

    @Test func aCallWaitsBrieflyForADeviceThatDroppedOff() async throws {
        // Three seconds: a loaded test machine may take more than one to reconnect and sync.
        let parley = try await TestParley.start { $0.reconnectGraceSeconds = 3 }
        try await parley.test(.live) { client in
            let scene = try await Self.scene(parley, client)
            defer { scene.close() }
            let id = try #require(try await Self.invite(scene.annSocket, scene.bo)["callId"] as? String)
            _ = try await scene.boSocket.command("call.accept", ["callId": id, "sdp": Self.offer])

            // Ann's phone drops and is back within the grace period: the call goes on.
            scene.annSocket.close()
            try await Task.sleep(for: .milliseconds(300))
            let (back, _) = try await RealtimeClient.connect(port: client.port!, token: scene.ann.accessToken)
            let synced = try await back.command("sync", ["since": 0])
            #expect(try await back.next { $0.type == "call.accepted" }["callId"] as? String == id, "syncing tells the call's state")
            let live = try #require(synced["calls"] as? [[String: Any]], "\(synced)")
            #expect(live.count == 1 && live.first?["callId"] as? String == id && live.first?["state"] as? String == "active"
                    && live.first?["direction"] as? String == "outgoing" && live.first?["peerId"] as? String == scene.bo.id,
                    "the device finds its call still active: \(live)")
            try await Task.sleep(for: .milliseconds(3500))   // past the grace: its timer was stopped
            #expect(await scene.boSocket.receives { $0.type == "call.ended" } == false)

            // Gone for longer than that: the call is lost.
            back.close()
            let ended = try await scene.boSocket.next(timeout: .seconds(10)) { $0.type == "call.ended" }
            #expect(ended["reason"] as? String == "connection_lost")
            let (again, _) = try await RealtimeClient.connect(port: client.port!, token: scene.ann.accessToken)
            defer { again.close() }
            #expect((try await again.command("sync", ["since": 0])["calls"] as? [Any])?.isEmpty == true, "past the grace the call is gone")
        }
    }

    @Test func aCallWhoseMediaNeverArrivesIsLost() async throws {
        let parley = try await TestParley.start { $0.mediaConsentSeconds = 1 }
        try await parley.test(.live) { client in
            let scene = try await Self.scene(parley, client)
            defer { scene.close() }
            // The offer's client never runs ICE: its leg is dead once consent lapses.
            let id = try #require(try await Self.invite(scene.annSocket, scene.bo)["callId"] as? String)
            for socket in [scene.annSocket, scene.boSocket] {
                let ended = try await socket.next(timeout: .seconds(10)) { $0.type == "call.ended" }
                #expect(ended["callId"] as? String == id)
                #expect(ended["reason"] as? String == "connection_lost")
            }
            #expect(await parley.parts.relay.counters().legs == 0)
        }
    }
}

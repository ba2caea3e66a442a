import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyApp
import ParleyTestSupport
import Testing

/// Pushes to phones whose app is closed, through Parley's APNs provider to a local APNs stand-in
/// (HTTP/2 over TLS, a test CA, the provider JWT checked against the key's public half).
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)))
struct PushTests {
    static let bundleID = "com.example.parley"
    static let boVoIP = String(repeating: "b0", count: 32)
    static let boAlert = String(repeating: "a1", count: 32)

    /// A stand-in and a Parley configured to push to it.
    struct Scene {
        let standIn: APNsStandIn
        let parley: TestParley
    }

    static func scene(_ configure: @escaping (inout ParleyConfiguration) -> Void = { _ in }) async throws -> Scene {
        let key = P256.Signing.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyFile = directory.appendingPathComponent("AuthKey_TESTKEY123.p8").path
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyFile))
        let standIn = try await APNsStandIn.start(publicKeyPEM: key.publicKey.pemRepresentation, keyID: "TESTKEY123",
                                                  teamID: "TEAM123456", bundleID: bundleID)
        let parley = try await TestParley.start {
            $0.push.keyFile = keyFile
            $0.push.keyID = "TESTKEY123"
            $0.push.teamID = "TEAM123456"
            $0.push.bundleID = bundleID
            $0.push.environment = "sandbox"
            $0.push.url = standIn.url
            $0.push.caFile = standIn.caFile
            configure(&$0)
        }
        return Scene(standIn: standIn, parley: parley)
    }

    /// Waits until the stand-in has `count` requests matching `match` (or 10 s pass).
    static func requests(_ standIn: APNsStandIn, count: Int, timeout: Duration = .seconds(10),
                         _ match: @escaping (APNsStandIn.Request) -> Bool = { _ in true }) async throws -> [APNsStandIn.Request] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = try await standIn.requests().filter(match)
            if found.count >= count || ContinuousClock.now > deadline { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func payload(_ request: APNsStandIn.Request) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(request.body.utf8))) as? [String: Any] ?? [:]
    }

    static func register(_ client: some TestClientProtocol, _ user: TestUser, voip: String? = boVoIP, alert: String? = boAlert,
                         bundle: String = bundleID, environment: String = "sandbox") async throws -> Reply {
        var body: [String: any Sendable] = ["bundleId": bundle, "environment": environment]
        if let voip { body["voipToken"] = voip }
        if let alert { body["alertToken"] = alert }
        return try await client.call(.put, "/v1/me/push", json: body, token: user.accessToken)
    }

    /// Ann and Bo, friends; Bo's phone registered its tokens and has no socket (its app is
    /// closed), Ann is connected.
    static func annOnlineBoAsleep(_ scene: Scene, _ client: some TestClientProtocol) async throws
        -> (ann: TestUser, bo: TestUser, annSocket: RealtimeClient) {
        let ann = try await client.signUp("Ann", "ann@example.com", outbox: scene.parley.outbox)
        let bo = try await client.signUp("Bo", "bo@example.com", outbox: scene.parley.outbox)
        try await client.befriend(ann, bo)
        try #require(try await register(client, bo).status == .noContent)
        let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
        return (ann, bo, annSocket)
    }

    @Test func registrationIsCheckedAndBadTokensAreNotStored() async throws {
        let scene = try await Self.scene()
        defer { scene.standIn.stop() }
        try await scene.parley.test { client in
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: scene.parley.outbox)
            #expect(try await Self.register(client, bo, voip: "not-hex").errorCode == "invalid_token")
            #expect(try await Self.register(client, bo, voip: "abcd").errorCode == "invalid_token")
            #expect(try await Self.register(client, bo, environment: "staging").errorCode == "invalid_environment")
            #expect(try await Self.register(client, bo, bundle: "com.example.other").errorCode == "unknown_bundle_id")
            #expect(try await Self.register(client, bo, voip: nil, alert: nil).errorCode == "missing_field")
            #expect(try await scene.parley.parts.pushStore.devices(of: .init(rawValue: bo.id)).isEmpty, "nothing stored")
            #expect(try await Self.register(client, bo).status == .noContent)
            #expect(try await scene.parley.parts.pushStore.devices(of: .init(rawValue: bo.id)).map(\.voipToken) == [Self.boVoIP])
            #expect(try await client.call(.delete, "/v1/me/push", token: bo.accessToken).status == .noContent)
            #expect(try await scene.parley.parts.pushStore.devices(of: .init(rawValue: bo.id)).isEmpty)

            // Logging out takes the device's tokens with it.
            #expect(try await Self.register(client, bo).status == .noContent)
            _ = try await client.call(.post, "/v1/auth/logout", token: bo.accessToken)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await scene.parley.parts.pushStore.devices(of: .init(rawValue: bo.id)).isEmpty)
        }
        let plain = try await TestParley.start()
        try await plain.test { client in
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: plain.outbox)
            #expect(try await Self.register(client, bo).errorCode == "push_not_configured")
        }
    }

    /// Bo's app is closed: Ann's invite reaches his VoIP token; he wakes, connects, accepts, and the
    /// call's media flows both ways.
    @Test func aClosedAppRingsThroughVoIPAndTheCallGoesThrough() async throws {
        let python = try AiortcPeer.python()
        let scene = try await Self.scene()
        defer { scene.standIn.stop() }
        try await scene.parley.test(.live) { client in
            let (_, bo, annSocket) = try await Self.annOnlineBoAsleep(scene, client)
            defer { annSocket.close() }
            let annPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--hold"])
            let boPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--hold"])
            defer { annPeer.kill(); boPeer.kill() }
            let annOffer = try #require(try await annPeer.next(timeout: .seconds(30)).sdp)
            let boOffer = try #require(try await boPeer.next(timeout: .seconds(30)).sdp)

            let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "video", "sdp": annOffer])
            let callID = try #require(invite["callId"] as? String, "\(invite)")
            try annPeer.send(answer: try #require(invite["sdp"] as? String))
            let voip = try await Self.requests(scene.standIn, count: 1) { $0.headers["apns-push-type"] == "voip" }
            try #require(voip.count == 1, "one VoIP push: \(voip)")
            #expect(voip[0].token == Self.boVoIP)
            #expect(voip[0].headers["apns-topic"] == Self.bundleID + ".voip")
            #expect(voip[0].headers["apns-priority"] == "10")
            #expect(voip[0].headers["apns-expiration"] == "0")
            #expect(voip[0].alpn == "h2")
            let body = Self.payload(voip[0])
            #expect(body["type"] as? String == "call.incoming")
            #expect(body["callId"] as? String == callID)
            #expect(body["media"] as? String == "video")
            #expect((body["from"] as? [String: Any])?["name"] as? String == "Ann")

            // The woken app connects, catches up and answers.
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { boSocket.close() }
            let synced = try await boSocket.command("sync", ["since": 0])
            #expect(synced.ok == true, "\(synced)")
            let accept = try await boSocket.command("call.accept", ["callId": callID, "sdp": boOffer])
            #expect(accept.ok == true, "\(accept)")
            try boPeer.send(answer: try #require(accept["sdp"] as? String))
            async let annResult = annPeer.next(timeout: .seconds(60))
            async let boResult = boPeer.next(timeout: .seconds(60))
            for (name, result) in zip(["Ann", "Bo"], try await [annResult, boResult]) {
                #expect(result.type == "result", "\(name): \(result.error ?? "")")
                #expect((result.audioFrames ?? 0) >= 100, "\(name) decoded \(result)")
                #expect((result.videoFrames ?? 0) >= 50, "\(name) decoded \(result)")
            }
            #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await scene.standIn.requests().filter { $0.headers["apns-push-type"] == "voip" }.count == 1,
                    "an answered call sends no end push to a device that is awake")
        }
    }

    /// Invite → VoIP push at APNs, over `PARLEY_PUSH_INVITES` invites (5 in the suite; 100 for the
    /// figures in the notes): every invite gives exactly one VoIP push for its call.
    @Test func everyInviteToAClosedAppGivesOneVoIPPush() async throws {
        let runs = Int(ProcessInfo.processInfo.environment["PARLEY_PUSH_INVITES"] ?? "") ?? 5
        let scene = try await Self.scene()
        defer { scene.standIn.stop() }
        try await scene.parley.test(.live) { client in
            let (_, bo, annSocket) = try await Self.annOnlineBoAsleep(scene, client)
            defer { annSocket.close() }
            var latencies: [Double] = []
            for run in 1...runs {
                let invitedAt = Date()
                let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "audio", "sdp": CallSignallingTests.offer])
                let callID = try #require(invite["callId"] as? String, "run \(run): \(invite)")
                let pushes = try await Self.requests(scene.standIn, count: 1) { Self.payload($0)["callId"] as? String == callID }
                try #require(pushes.count == 1, "run \(run): \(pushes)")
                latencies.append(pushes[0].arrivalDate.timeIntervalSince(invitedAt))
                #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
                _ = try await Self.requests(scene.standIn, count: 2) { Self.payload($0)["callId"] as? String == callID }
            }
            let sorted = latencies.sorted()
            let p50 = sorted[sorted.count / 2], p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            print("push: invite → VoIP push at APNs over \(runs) invites: p50 \(Int(p50 * 1000)) ms, p99 \(Int(p99 * 1000)) ms, max \(Int(sorted.last! * 1000)) ms")
        }
    }

    /// Ann cancels while Bo's app is closed: Bo's device gets the end push for that call and a
    /// missed-call alert; a blocked user's invite pushes nothing.
    @Test func aCanceledRingStopsCallKitAndBlockedCallersPushNothing() async throws {
        let scene = try await Self.scene()
        defer { scene.standIn.stop() }
        try await scene.parley.test(.live) { client in
            let (ann, bo, annSocket) = try await Self.annOnlineBoAsleep(scene, client)
            defer { annSocket.close() }
            let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "audio", "sdp": CallSignallingTests.offer])
            let callID = try #require(invite["callId"] as? String, "\(invite)")
            _ = try await Self.requests(scene.standIn, count: 1)
            #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
            let voip = try await Self.requests(scene.standIn, count: 2) { $0.headers["apns-push-type"] == "voip" }
            try #require(voip.count == 2, "\(voip)")
            let stop = Self.payload(voip[1])
            #expect(stop["type"] as? String == "call.ended")
            #expect(stop["callId"] as? String == callID)
            #expect(stop["reason"] as? String == "canceled")
            let missed = try await Self.requests(scene.standIn, count: 1) { $0.headers["apns-push-type"] == "alert" }
            #expect(missed.first?.token == Self.boAlert)
            #expect(Self.payload(missed.first!)["type"] as? String == "call.missed")

            // Bo blocks Ann: her invite is refused, and nothing reaches APNs.
            _ = try await client.call(.put, "/v1/blocks/\(ann.id)", token: bo.accessToken)
            let before = try await scene.standIn.requests().count
            #expect(try await annSocket.command("call.invite", ["to": bo.id, "media": "audio", "sdp": CallSignallingTests.offer]).ok == false)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await scene.standIn.requests().count == before)
        }
    }

    /// A message to a member whose app is closed: one alert with the dialog as thread-id and the
    /// unread dialogs as badge; nothing when messages are switched off or the dialog is muted;
    /// a token APNs says is gone is forgotten; APNs unavailable for a while delays, not loses.
    @Test func messagesAlertOfflineMembersAsTheirSettingsSay() async throws {
        let scene = try await Self.scene()
        defer { scene.standIn.stop() }
        try await scene.parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: scene.parley.outbox)
            #expect(try await Self.register(client, bo).status == .noContent)
            _ = try await client.sendText(ann, dialog, "See you at eight")
            let alerts = try await Self.requests(scene.standIn, count: 1) { $0.headers["apns-push-type"] == "alert" }
            try #require(alerts.count == 1, "\(alerts)")
            #expect(alerts[0].headers["apns-topic"] == Self.bundleID)
            let aps = try #require(Self.payload(alerts[0])["aps"] as? [String: Any])
            #expect(aps["thread-id"] as? String == dialog)
            #expect(aps["badge"] as? Int == 1)
            #expect((aps["alert"] as? [String: Any])?["body"] as? String == "See you at eight")
            #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Ann")

            // Previews off: the alert does not show the text.
            let off = try await client.call(.patch, "/v1/me/notifications", json: ["previews": false], token: bo.accessToken)
            #expect(off["previews"] as? Bool == false, "\(off.text)")
            _ = try await client.sendText(ann, dialog, "Secret")
            let second = try await Self.requests(scene.standIn, count: 2) { $0.headers["apns-push-type"] == "alert" }
            #expect(((Self.payload(second.last!)["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "New message")

            // Muted dialog, then messages switched off: nothing.
            #expect(try await client.call(.put, "/v1/me/notifications/muted-dialogs/\(dialog)", token: bo.accessToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/me/notifications", token: bo.accessToken)["mutedDialogIds"] as? [String] == [dialog])
            _ = try await client.sendText(ann, dialog, "Muted")
            #expect(try await client.call(.delete, "/v1/me/notifications/muted-dialogs/\(dialog)", token: bo.accessToken).status == .noContent)
            _ = try await client.call(.patch, "/v1/me/notifications", json: ["messages": false], token: bo.accessToken)
            _ = try await client.sendText(ann, dialog, "Switched off")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await scene.standIn.requests().filter { $0.headers["apns-push-type"] == "alert" }.count == 2)
            #expect(try await client.call(.put, "/v1/me/notifications/muted-dialogs/nope", token: bo.accessToken).errorCode == "dialog_not_found")
            _ = try await client.call(.patch, "/v1/me/notifications", json: ["messages": true, "previews": true], token: bo.accessToken)

            // APNs answers 503 for a while: the alert arrives once it recovers.
            try await scene.standIn.fail(seconds: 1.5)
            _ = try await client.sendText(ann, dialog, "After the outage")
            let recovered = try await Self.requests(scene.standIn, count: 1, timeout: .seconds(15)) {
                $0.status == 200 && $0.body.contains("After the outage")
            }
            #expect(recovered.count == 1, "delivered after APNs recovered")

            // 410 Unregistered: the token is forgotten.
            try await scene.standIn.unregister(token: Self.boAlert)
            _ = try await client.sendText(ann, dialog, "Gone")
            _ = try await Self.requests(scene.standIn, count: 1) { $0.status == 410 }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await scene.parley.parts.pushStore.devices(of: .init(rawValue: bo.id)).map(\.alertToken) == [nil])
            let figures = try #require(scene.parley.parts.push?.stats())
            #expect(figures.delivered >= 3 && figures.tokenGone == 1 && figures.retried >= 1, "\(figures)")
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyTestSupport
import Testing

/// Two real aiortc clients, logged in as two friends, call each other through the real gateway
/// and relay: each decodes the other's Opus and VP8; the hangup ends it for both with a duration;
/// the dialog keeps the record.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)))
struct CallInteropTests {
    /// `PARLEY_CALL_SETUP_RUNS=20` places that many calls in a row and prints the setup times
    /// (a measurement for the notes; the suite places one).
    static let runs = Int(ProcessInfo.processInfo.environment["PARLEY_CALL_SETUP_RUNS"] ?? "") ?? 1

    @Test func aVideoCallBetweenTwoFriends() async throws {
        let python = try AiortcPeer.python()
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let friends = try await TwoFriendsOnline.start(parley, client)
            defer { friends.close() }
            let (ann, bo, annSocket, boSocket) = (friends.ann, friends.bo, friends.annSocket, friends.boSocket)
            var ringing: [Double] = [], media: [Double] = []
            for run in 1...Self.runs {
                let (ring, firstFrame) = try await Self.placeCall(python: python, parley: parley, client: client,
                                                                  ann: ann, bo: bo, annSocket: annSocket, boSocket: boSocket, run: run)
                ringing.append(ring)
                media.append(firstFrame)
            }
            func summary(_ values: [Double]) -> String {
                let sorted = values.sorted()
                return "p50 \(Int(sorted[sorted.count / 2] * 1000)) ms, max \(Int(sorted.last! * 1000)) ms over \(sorted.count)"
            }
            print("call setup: invite → call.incoming \(summary(ringing)); invite → first decoded frame \(summary(media))")
        }
    }

    /// One call from Ann to Bo: returns (invite → call.incoming, invite → first decoded frame) in seconds.
    static func placeCall(python: String, parley: TestParley, client: some TestClientProtocol, ann: TestUser, bo: TestUser,
                          annSocket: RealtimeClient, boSocket: RealtimeClient, run: Int) async throws -> (Double, Double) {
        do {
            // --hold: the peers keep their connections until the hangup (a peer that closes DTLS
            // ends the call at once, `connection_lost`).
            let annPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--hold"])
            let boPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--srtp", "cm80", "--hold"])
            defer { annPeer.kill(); boPeer.kill() }

            let annOffer = try #require(try await annPeer.next(timeout: .seconds(30)).sdp)
            let boOffer = try #require(try await boPeer.next(timeout: .seconds(30)).sdp)
            let invitedAt = Date()
            let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "video", "sdp": annOffer])
            #expect(invite.ok == true, "\(invite)")
            let callID = try #require(invite["callId"] as? String)
            try annPeer.send(answer: try #require(invite["sdp"] as? String))

            let incoming = try await boSocket.next { $0.type == "call.incoming" }
            let ringingAfter = Date().timeIntervalSince(invitedAt)
            #expect(incoming["callId"] as? String == callID)
            #expect(incoming["from"] as? String == ann.id)
            #expect(incoming["media"] as? String == "video")

            let accept = try await boSocket.command("call.accept", ["callId": callID, "sdp": boOffer])
            #expect(accept.ok == true, "\(accept)")
            try boPeer.send(answer: try #require(accept["sdp"] as? String))
            _ = try await annSocket.next { $0.type == "call.accepted" }
            let acceptedAt = Date()

            async let annResult = annPeer.next(timeout: .seconds(60))
            async let boResult = boPeer.next(timeout: .seconds(60))
            let results = try await [annResult, boResult]
            for (name, result) in zip(["Ann", "Bo"], results) {
                #expect(result.type == "result", "\(name): \(result.error ?? "")")
                #expect((result.audioFrames ?? 0) >= 200, "\(name) decoded \(result)")
                #expect((result.videoFrames ?? 0) >= 100, "\(name) decoded \(result)")
            }
            let firstFrame = results.compactMap { [$0.firstAudioEpoch, $0.firstVideoEpoch].compactMap { $0 }.min() }.min() ?? 0
            print("call \(run): frames Ann \(results[0].audioFrames ?? -1)/\(results[0].videoFrames ?? -1), Bo \(results[1].audioFrames ?? -1)/\(results[1].videoFrames ?? -1)")

            parley.clock.advance(by: Date().timeIntervalSince(acceptedAt))   // the server's clock is the test's
            #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
            for socket in [annSocket, boSocket] {
                let ended = try await socket.next { $0.type == "call.ended" }
                #expect(ended["reason"] as? String == "hangup")
                #expect((ended["durationSeconds"] as? Int ?? 0) >= 5)
            }
            let dialog = try await client.privateDialog(ann, with: bo)
            let record = try #require(try await client.history(bo, dialog).first)
            #expect(record["kind"] as? String == "call")
            #expect((record["call"] as? JSON)?["outcome"] as? String == "answered")
            #expect((record["call"] as? JSON)?["media"] as? String == "video")
            let calls = try await client.call(.get, "/v1/calls", token: bo.accessToken)["calls"] as? [JSON]
            #expect(calls?.first?["direction"] as? String == "incoming")
            #expect(calls?.first?["outcome"] as? String == "answered")
            #expect(await parley.parts.relay.counters().legs == 0, "both legs released")
            return (ringingAfter, firstFrame - invitedAt.timeIntervalSince1970)
        }
    }
}

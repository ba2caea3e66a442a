import Foundation
import ParleyTestSupport
import Testing

/// An ICE restart in a live call through the gateway: headless Chromium (Ann) calls aiortc (Bo),
/// calls `pc.restartIce()` mid-call, sends the new offer with `call.restart` and applies the
/// answer; media keeps flowing both ways and nobody gets `call.ended` until the hangup.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                "needs Debian's chromium: scripts/test.sh installs it (apt-get install chromium)"))
struct CallRestartTests {
    @Test func chromiumRestartsICEMidCallAndMediaKeepsFlowing() async throws {
        let python = try AiortcPeer.python()
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let friends = try await TwoFriendsOnline.start(parley, client)
            defer { friends.close() }
            let (ann, bo, annSocket, boSocket) = (friends.ann, friends.bo, friends.annSocket, friends.boSocket)
            let annPeer = try AiortcPeer(python: python, script: AiortcPeer.script(named: "chromium_restart_peer.py"),
                                         arguments: ["--restart-after", "3", "--seconds-after", "6", "--hold"])
            // --hold: both keep their connections until the hangup (a closed DTLS would end the call).
            let boPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--seconds", "12", "--hold"])
            defer { annPeer.kill(); boPeer.kill() }
            do {
                let annOffer = try await annPeer.next(timeout: .seconds(30))
                let boOffer = try #require(try await boPeer.next(timeout: .seconds(30)).sdp)
                let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "video",
                                                                         "sdp": try #require(annOffer.sdp, "\(annOffer)")])
                #expect(invite.ok == true, "\(invite)")
                let callID = try #require(invite["callId"] as? String)
                try annPeer.send(answer: try #require(invite["sdp"] as? String))
                _ = try await boSocket.next { $0.type == "call.incoming" }
                let accept = try await boSocket.command("call.accept", ["callId": callID, "sdp": boOffer])
                #expect(accept.ok == true, "\(accept)")
                try boPeer.send(answer: try #require(accept["sdp"] as? String))

                // Chromium decodes Bo's video, then restarts ICE.
                let restartOffer = try await annPeer.next(timeout: .seconds(40))
                #expect(restartOffer.restart == true, "\(restartOffer.error ?? "") \(annPeer.stderr.suffix(2000))")
                let restart = try await annSocket.command("call.restart", ["callId": callID, "sdp": try #require(restartOffer.sdp)])
                #expect(restart.ok == true, "\(restart)")
                try annPeer.send(answer: try #require(restart["sdp"] as? String))

                async let annResult = annPeer.next(timeout: .seconds(40))
                async let boResult = boPeer.next(timeout: .seconds(40))
                let (chromium, aiortc) = try await (annResult, boResult)
                #expect(chromium.type == "result", "\(chromium.error ?? "") \(annPeer.stderr.suffix(2000))")
                #expect(aiortc.type == "result", "\(aiortc.error ?? "")")
                let before = chromium.videoFramesBefore ?? 0, after = (chromium.videoFrames ?? 0) - before
                #expect(before >= 30 && after >= 100, "Chromium decoded \(before) frames before the restart, \(after) after")
                #expect(chromium.connectionState == "connected" && !(chromium.connectionStates ?? []).contains("failed"), "\(chromium)")
                #expect(chromium.ufragAfter != chromium.ufragBefore, "Chromium moved to the new credentials: \(chromium)")
                let counters = await parley.parts.relay.counters()
                // Bounds for a loaded machine (the whole suite beside it): media kept flowing, not how much.
                #expect((aiortc.videoFrames ?? 0) >= 50 && (aiortc.audioFrames ?? 0) >= 200,
                        "Bo decoded \(aiortc); relay drops \(counters.droppedByName.filter { $0.value > 0 })")

                // Nobody's call ended on the way: the first call.ended each side sees is the hangup.
                #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
                for socket in [annSocket, boSocket] {
                    let ended = try await socket.next { $0.type == "call.ended" }
                    #expect(ended["reason"] as? String == "hangup", "\(ended)")
                }
                annPeer.close()
                boPeer.close()
                print("""
                    call.restart (Chromium ↔ aiortc through the gateway): media lost \(chromium.videoGapSeconds ?? -1) s video, \
                    \(chromium.audioGapSeconds ?? -1) s audio at Chromium (longest video gap before the restart \
                    \(chromium.baselineVideoGapSeconds ?? -1) s); answer applied \(chromium.restartAnsweredAfter ?? -1) s after \
                    restartIce(); Chromium frames before \(before), after \(after); Bo audio \(aiortc.audioFrames ?? -1) video \
                    \(aiortc.videoFrames ?? -1); ufrag \(chromium.ufragBefore ?? "?") → \(chromium.ufragAfter ?? "?")
                    """)
            } catch {
                Issue.record("\(error)\nChromium stderr:\n\(annPeer.stderr.suffix(3000))\naiortc stderr:\n\(boPeer.stderr.suffix(2000))")
            }
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyTestSupport
import Testing

/// A leg that ends ends the call, and an offer in max-bundle form gets an answer both media flow
/// through: two real aiortc clients, logged in as two friends, through the real gateway and relay.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)))
struct CallLegEndTests {
    /// A live parley with Ann and Bo, friends, each on a realtime socket.
    static func withFriends(_ body: @escaping @Sendable (TestParley, any TestClientProtocol, TestUser, RealtimeClient, RealtimeClient) async throws -> Void) async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let friends = try await TwoFriendsOnline.start(parley, client)
            defer { friends.close() }
            try await body(parley, client, friends.bo, friends.annSocket, friends.boSocket)
        }
    }

    /// Ann calls Bo with the given offers; returns the call id once both peers have their answers.
    static func connect(annPeer: AiortcPeer, boPeer: AiortcPeer, annSocket: RealtimeClient, boSocket: RealtimeClient,
                        bo: TestUser, rewriteAnnOffer: (String) -> String = { $0 }) async throws -> (callID: String, annAnswer: String) {
        let annOffer = rewriteAnnOffer(try #require(try await annPeer.next(timeout: .seconds(30)).sdp))
        let boOffer = try #require(try await boPeer.next(timeout: .seconds(30)).sdp)
        let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "video", "sdp": annOffer])
        #expect(invite.ok == true, "\(invite)")
        let callID = try #require(invite["callId"] as? String)
        let annAnswer = try #require(invite["sdp"] as? String)
        try annPeer.send(answer: annAnswer)
        _ = try await boSocket.next { $0.type == "call.incoming" }
        let accept = try await boSocket.command("call.accept", ["callId": callID, "sdp": boOffer])
        #expect(accept.ok == true, "\(accept)")
        try boPeer.send(answer: try #require(accept["sdp"] as? String))
        _ = try await annSocket.next { $0.type == "call.accepted" }
        return (callID, annAnswer)
    }

    @Test("a peer that closes its DTLS (aiortc pc.close() sends close_notify) ends the call for both, connection_lost, at once")
    func closeNotifyEndsTheCall() async throws {
        let python = try AiortcPeer.python()
        try await Self.withFriends { parley, client, bo, annSocket, boSocket in
            // Ann counts 2 s of media, then the test has her close her peer connection; Bo's stays up.
            let annPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--seconds", "2", "--hold"])
            let boPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--seconds", "20", "--hold"])
            defer { annPeer.kill(); boPeer.kill() }
            do {
                let (callID, _) = try await Self.connect(annPeer: annPeer, boPeer: boPeer, annSocket: annSocket,
                                                         boSocket: boSocket, bo: bo)
                let annResult = try await annPeer.next(timeout: .seconds(60))
                #expect(annResult.type == "result", "\(annResult.error ?? "")")
                #expect((annResult.videoFrames ?? 0) > 0, "media flowed before the close: \(annResult)")
                let closedAt = ContinuousClock.now
                annPeer.close()
                for (name, socket) in [("Ann", annSocket), ("Bo", boSocket)] {
                    let ended = try await socket.next(timeout: .seconds(10)) { $0.type == "call.ended" }
                    let after = ContinuousClock.now - closedAt
                    #expect(ended["callId"] as? String == callID)
                    #expect(ended["reason"] as? String == "connection_lost", "\(name): \(ended)")
                    // Well before the 30 s consent timeout: the close itself ended it.
                    #expect(after < .seconds(5), "\(name) heard after \(after)")
                    print("call.ended connection_lost for \(name) \(after) after Ann's peer closed")
                }
                #expect(await parley.parts.relay.counters().legs == 0, "both legs released")
                let calls = try await client.call(.get, "/v1/calls", token: bo.accessToken)["calls"] as? [JSON]
                #expect(calls?.first?["outcome"] as? String == "answered")
            } catch {
                Issue.record("\(error)\nAnn's peer:\n\(annPeer.stderr)\nBo's peer:\n\(boPeer.stderr)")
            }
        }
    }

    /// Ann's offer as a max-bundle stack writes it (RFC 8843 §7.2.1): the video section after the
    /// tagged audio one gets port 0, `a=bundle-only` and no candidates of its own.
    static func maxBundle(_ offer: String) -> String {
        var sections = offer.components(separatedBy: "\r\nm=")
        guard let index = sections.firstIndex(where: { $0.hasPrefix("video ") }) else { return offer }
        var lines = sections[index].components(separatedBy: "\r\n")
            .filter { !$0.hasPrefix("a=candidate:") && $0 != "a=end-of-candidates" }
        var mLine = lines[0].split(separator: " ").map(String.init)
        mLine[1] = "0"
        lines[0] = mLine.joined(separator: " ")
        lines = lines.map { $0.hasPrefix("c=") ? "c=IN IP4 0.0.0.0" : $0 }
        lines.insert("a=bundle-only", at: lines.firstIndex { $0.hasPrefix("c=") }.map { $0 + 1 } ?? 1)
        sections[index] = lines.joined(separator: "\r\n")
        return sections.joined(separator: "\r\nm=")
    }

    @Test("an offer whose video section is bundle-only (port 0) gets an answer with both media, and both flow both ways")
    func bundleOnlyOffer() async throws {
        let python = try AiortcPeer.python()
        try await Self.withFriends { parley, client, bo, annSocket, boSocket in
            // --hold: both keep their connections until the hangup.
            let annPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--hold"])
            let boPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--hold"])
            defer { annPeer.kill(); boPeer.kill() }
            do {
                var sentOffer = ""
                let (callID, answer) = try await Self.connect(
                    annPeer: annPeer, boPeer: boPeer, annSocket: annSocket, boSocket: boSocket, bo: bo,
                    rewriteAnnOffer: { offer in
                        sentOffer = Self.maxBundle(offer)
                        return sentOffer
                    })
                #expect(sentOffer.contains("\r\nm=video 0 UDP/TLS/RTP/SAVPF ") && sentOffer.contains("a=bundle-only\r\n"))
                #expect(!sentOffer.components(separatedBy: "m=video")[1].contains("a=candidate:"))

                // Both sections accepted on the relay's port, both in BUNDLE, no bundle-only.
                let mLines = answer.components(separatedBy: "\r\n").filter { $0.hasPrefix("m=") }
                #expect(mLines.count == 2)
                #expect(mLines.allSatisfy { $0.split(separator: " ")[1] != "0" }, "\(mLines)")
                #expect(answer.contains("a=group:BUNDLE 0 1\r\n"))
                #expect(!answer.contains("bundle-only"))
                #expect(answer.components(separatedBy: "a=setup:passive").count == 3, "setup in each section")
                #expect(answer.components(separatedBy: "a=fingerprint:sha-256 ").count == 3, "fingerprint in each section")

                async let annResult = annPeer.next(timeout: .seconds(60))
                async let boResult = boPeer.next(timeout: .seconds(60))
                let results = try await [annResult, boResult]
                for (name, result) in zip(["Ann", "Bo"], results) {
                    #expect(result.type == "result", "\(name): \(result.error ?? "")")
                    #expect((result.audioFrames ?? 0) >= 200, "\(name) decoded \(result)")
                    #expect((result.videoFrames ?? 0) >= 100, "\(name) decoded \(result)")
                }
                print("bundle-only offer: frames Ann \(results[0].audioFrames ?? -1)/\(results[0].videoFrames ?? -1), Bo \(results[1].audioFrames ?? -1)/\(results[1].videoFrames ?? -1)")
                #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)
            } catch {
                Issue.record("\(error)\nAnn's peer:\n\(annPeer.stderr)\nBo's peer:\n\(boPeer.stderr)")
            }
        }
    }
}

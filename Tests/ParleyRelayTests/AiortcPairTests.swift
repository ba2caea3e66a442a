import Foundation
import ParleyTestSupport
import Testing
@testable import ParleyRelay

extension AiortcEchoTests {
    /// Two aiortc clients in one 1:1 call: each decodes the other's Opus and VP8. One offers GCM
    /// and one only AES-CM, so each direction is decrypted with one profile and re-encrypted
    /// with the other.
    @Test("two aiortc clients paired decode each other's audio and video")
    func pairedCall() async throws {
        let python = try AiortcPeer.python()
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let caller = try AiortcPeer(python: python, arguments: ["--srtp", "gcm128,cm80"])
        let callee = try AiortcPeer(python: python, arguments: ["--srtp", "cm80"])
        do {
            let callerOffer = try #require(try await caller.next(timeout: .seconds(30)).sdp)
            let calleeOffer = try #require(try await callee.next(timeout: .seconds(30)).sdp)
            let (a, answerA) = try await relay.createLeg(offer: callerOffer, owner: "call-1")
            let (b, answerB) = try await relay.createLeg(offer: calleeOffer, owner: "call-1")
            try await relay.pair(a, b)
            try caller.send(answer: answerA)
            try callee.send(answer: answerB)
            async let callerResult = caller.next(timeout: .seconds(60))
            async let calleeResult = callee.next(timeout: .seconds(60))
            let results = try await [callerResult, calleeResult]
            // Each side decodes what the other sent.
            for (result, other) in zip(results, results.reversed()) {
                #expect(result.type == "result", "\(result.error ?? "")")
                Self.expectCarried(result, sentBy: other)
            }
            #expect(results.map(\.srtpProfile) == ["SRTP_AEAD_AES_128_GCM", "SRTP_AES128_CM_SHA1_80"])
            let statsA = try #require(await relay.stats(for: a))
            let statsB = try #require(await relay.stats(for: b))
            #expect(statsA.packetsIn > 300 && statsB.packetsOut > 300)
            print("aiortc pair: caller audio=\(results[0].audioFrames ?? -1) video=\(results[0].videoFrames ?? -1), callee audio=\(results[1].audioFrames ?? -1) video=\(results[1].videoFrames ?? -1); counters=\(await relay.counters().droppedByName.filter { $0.value > 0 })")
        } catch {
            Issue.record("\(error)\ncaller stderr:\n\(caller.stderr)\ncallee stderr:\n\(callee.stderr)")
        }
        caller.kill()
        callee.kill()
        await relay.shutdown()
    }
}

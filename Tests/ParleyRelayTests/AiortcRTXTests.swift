import Foundation
import ParleyTestSupport
import Testing
@testable import ParleyRelay

extension AiortcEchoTests {
    /// Two aiortc clients in a call under loss the relay makes (its test-only hooks: every 15th
    /// video packet of each sender lost before the relay, every 20th lost after it, on the way to
    /// the receiver). aiortc NACKs; the relay resends what it kept from its history and passes the
    /// rest of each NACK on, and the sender's retransmission comes back. With RTX negotiated
    /// (`--rtx`) both arrive at the receiver on the relay's RTX stream, counted by aiortc's own
    /// receiver under the RTX SSRC and payload type of its answer; a receiver without RTX gets
    /// the sender's RTX unwrapped and the relay's resends as plain media.
    @Test("aiortc under loss: retransmissions travel as RTX where negotiated, unwrapped where not",
          arguments: [(true, true), (true, false)])
    func retransmissionsUnderLoss(callerRTX: Bool, calleeRTX: Bool) async throws {
        let python = try AiortcPeer.python()
        var configuration = RelayConfiguration(host: "127.0.0.1", port: 0)
        configuration.testVideoLossInbound = 15
        configuration.testVideoLossOutbound = 20
        let relay = try await MediaRelay.start(configuration: configuration)
        let caller = try AiortcPeer(python: python, arguments: ["--seconds", "6"] + (callerRTX ? ["--rtx"] : []))
        let callee = try AiortcPeer(python: python, arguments: ["--seconds", "6"] + (calleeRTX ? ["--rtx"] : []))
        do {
            let callerOffer = try #require(try await caller.next(timeout: .seconds(30)).sdp)
            let calleeOffer = try #require(try await callee.next(timeout: .seconds(30)).sdp)
            #expect(callerOffer.contains(" rtx/90000") == callerRTX && calleeOffer.contains(" rtx/90000") == calleeRTX)
            let (a, answerA) = try await relay.createLeg(offer: callerOffer, owner: "call-1")
            let (b, answerB) = try await relay.createLeg(offer: calleeOffer, owner: "call-1")
            #expect(answerA.contains(" rtx/90000") == callerRTX && answerB.contains(" rtx/90000") == calleeRTX)
            try await relay.pair(a, b)
            try caller.send(answer: answerA)
            try callee.send(answer: answerB)
            async let callerResult = caller.next(timeout: .seconds(60))
            async let calleeResult = callee.next(timeout: .seconds(60))
            let results = try await [callerResult, calleeResult]
            let counters = await relay.counters()
            for (index, result) in results.enumerated() {
                let rtx = [callerRTX, calleeRTX][index]
                #expect(result.type == "result", "\(result.error ?? "")")
                Self.expectCarried(result, sentBy: results[1 - index], audio: false)
                #expect((result.retransmissionsSent ?? 0) > 0, "the relay passed NACKs on to each sender")
                #expect(rtx ? (result.rtxSent ?? 0) > 0 : result.rtxSent == 0, "a sender with RTX retransmits as RTX, one without as plain media")
                guard rtx else { continue }
                // What aiortc's receiver took on the relay's RTX stream, as its answer announced it.
                let fid = try #require(result.answerFID)
                let payloadType = try #require(result.answerRtxPayloadType)
                let onRTX = result.rtpReceived?["\(fid[1])/\(payloadType)"] ?? 0
                #expect(onRTX > 0, "retransmissions reached the client on the RTX stream: \(result.rtpReceived ?? [:])")
            }
            #expect(counters[.testLoss] > 0)
            #expect(counters.retransmitted > 0)
            if callerRTX && calleeRTX {
                #expect(counters.rtxForwarded > 0 && counters.rtxUnwrapped == 0)
                #expect(counters.retransmittedAsRTX == counters.retransmitted)
            } else {
                // The caller's RTX reaches the callee unwrapped; the relay's resends to the
                // caller go as RTX, to the callee as they were.
                #expect(counters.rtxUnwrapped > 0 && counters.rtxForwarded == 0)
                #expect(counters.retransmittedAsRTX > 0 && counters.retransmittedAsRTX < counters.retransmitted)
            }
            #expect(counters[.rtxTooShort] == 0 && counters[.unknownPayloadType] == 0)
            print("aiortc rtx \(callerRTX)/\(calleeRTX): frames \(results.map { $0.videoFrames ?? -1 }), sent \(results.map { $0.retransmissionsSent ?? -1 }) (rtx \(results.map { $0.rtxSent ?? -1 })), received \(results.map { $0.rtpReceived ?? [:] }); relay retransmitted=\(counters.retransmitted) asRTX=\(counters.retransmittedAsRTX) rtxForwarded=\(counters.rtxForwarded) rtxUnwrapped=\(counters.rtxUnwrapped) drops=\(counters.droppedByName.filter { $0.value > 0 })")
        } catch {
            Issue.record("\(error)\ncaller stderr:\n\(caller.stderr)\ncallee stderr:\n\(callee.stderr)")
        }
        caller.kill()
        callee.kill()
        await relay.shutdown()
    }
}

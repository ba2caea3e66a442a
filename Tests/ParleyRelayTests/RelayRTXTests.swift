import Foundation
@testable import ParleyMediaClient
import ParleyTestSupport
import ParleyRTP
import Testing
@testable import ParleyRelay

/// RTX (RFC 4588) through the relay: retransmissions on their own stream, as libwebrtc sends and
/// expects them once `rtx` is negotiated. The relay's own resends (from its history) and a
/// sender's RTX go to a receiver with RTX as RTX — its payload type, the relay's RTX SSRC to it,
/// one sequence for both — and to a receiver without RTX as the original packet.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct RelayRTXTests {
    /// The answer's video `a=ssrc-group:FID <media> <rtx>`.
    func answerFID(_ answer: String) throws -> (media: UInt32, rtx: UInt32) {
        let line = try #require(answer.split(separator: "\r\n").first { $0.hasPrefix("a=ssrc-group:FID ") })
        let ssrcs = line.split(separator: " ").dropFirst().compactMap { UInt32($0) }
        try #require(ssrcs.count == 2)
        return (ssrcs[0], ssrcs[1])
    }

    /// The offer of `client` without its RTX format: a receiver that did not negotiate RTX.
    func offerWithoutRTX(_ client: MediaClient) -> String {
        let pt = client.local.videoPayloadType
        return client.offer
            .replacingOccurrences(of: "a=rtpmap:\(pt + 1) rtx/90000\r\na=fmtp:\(pt + 1) apt=\(pt)\r\n", with: "")
            .replacingOccurrences(of: "UDP/TLS/RTP/SAVPF \(pt) \(pt + 1)\r\n", with: "UDP/TLS/RTP/SAVPF \(pt)\r\n")
    }

    func videoPacket(_ client: MediaClient, _ sequence: UInt16) -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: client.local.videoPayloadType, sequenceNumber: sequence,
                                       timestamp: UInt32(sequence / 4) * 3_000, ssrc: client.local.videoSSRC)
        builder.extensions = [(id: 1, value: Array(client.local.mids.video.utf8))]
        builder.payload = (0..<900).map { UInt8(truncatingIfNeeded: Int(sequence) &* 7 &+ $0) }
        return builder.build()
    }

    /// An RTX packet from `client` repairing its `original` (RFC 4588 §4), `payloadBytes` of it
    /// after the header: 2 for the OSN and the payload; fewer makes garbage.
    func rtxPacket(_ client: MediaClient, rtxSequence: UInt16, original: UInt16, payloadBytes: Int? = nil, padding: UInt8 = 0) -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: client.local.videoPayloadType + 1, sequenceNumber: rtxSequence,
                                       timestamp: UInt32(original / 4) * 3_000, ssrc: 0x5258_5800)
        builder.extensions = [(id: 1, value: Array(client.local.mids.video.utf8))]
        let whole = [UInt8(original >> 8), UInt8(original & 0xFF)] + (0..<900).map { UInt8(truncatingIfNeeded: Int(original) &* 7 &+ $0) }
        builder.payload = Array(whole.prefix(payloadBytes ?? whole.count))
        builder.paddingLength = padding
        return builder.build()
    }

    struct Call {
        let relay: MediaRelay
        let alice: MediaClient
        let bob: MediaClient
        let answerB: String
    }

    func call(bobHasRTX: Bool) async throws -> Call {
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let alice = try await MediaClient()
        let bob = try await MediaClient()
        let (a, answerA) = try await relay.createLeg(offer: alice.offer, owner: "call")
        let (b, answerB) = try await relay.createLeg(offer: bobHasRTX ? bob.offer : offerWithoutRTX(bob), owner: "call")
        try await alice.connect(answer: answerA)
        try await bob.connect(answer: answerB)
        try await relay.pair(a, b)
        _ = await alice.receive(for: .milliseconds(200))   // the key-frame requests of pairing
        _ = await bob.receive(for: .milliseconds(50))
        return Call(relay: relay, alice: alice, bob: bob, answerB: answerB)
    }

    @Test("the relay answers a NACK from its history as RTX, and passes the sender's RTX on under the receiver's ids")
    func receiverWithRTX() async throws {
        let call = try await call(bobHasRTX: true)
        let (alice, bob) = (call.alice, call.bob)
        let (relayVideo, relayRTX) = try answerFID(call.answerB)
        for sequence in 100..<120 { alice.send(videoPacket(alice, UInt16(sequence))) }
        let first = await bob.receive(for: .seconds(5), rtpCount: 20).filter { !$0.isRTCP }.map(\.bytes)
        #expect(first.count == 20)
        let sent = Dictionary(uniqueKeysWithValues: try first.map { (try RTPHeader.parse($0).get().sequenceNumber, $0) })

        bob.send(RTCPBuilder.genericNACK(senderSSRC: bob.local.videoSSRC, mediaSSRC: relayVideo,
                                         lostSequenceNumbers: [105, 107]), rtcp: true)
        // New packets on the RTX stream (not replays of the originals, as without RTX).
        let resent = await bob.receive(for: .seconds(2), rtpCount: 2).filter { !$0.isRTCP }.map(\.bytes)
        try #require(resent.count == 2)
        var rtxSequences: [UInt16] = []
        for (packet, osn) in zip(resent, [UInt16(105), 107]) {
            let header = try RTPHeader.parse(packet).get()
            #expect(header.payloadType == bob.local.videoPayloadType + 1 && header.ssrc == relayRTX)
            #expect(packet.withUnsafeBytes { RTPRetransmission.originalSequenceNumber(in: $0, header: header) } == osn)
            let original = try #require(sent[osn])
            let originalHeader = try RTPHeader.parse(original).get()
            #expect(Array(packet[(header.payloadRange.lowerBound + 2)...]) == Array(original[originalHeader.payloadRange]))
            #expect(header.timestamp == originalHeader.timestamp)
            rtxSequences.append(header.sequenceNumber)
        }
        #expect(rtxSequences[1] == rtxSequences[0] &+ 1)

        // Alice answers a NACK the relay could not (its RTX for 125, never sent before): to Bob as
        // RTX, next in the same RTX sequence.
        alice.send(rtxPacket(alice, rtxSequence: 900, original: 125))
        let forwarded = await bob.receive(for: .seconds(2), rtpCount: 1).filter { !$0.isRTCP }.map(\.bytes)
        let packet = try #require(forwarded.first)
        let header = try RTPHeader.parse(packet).get()
        #expect(header.payloadType == bob.local.videoPayloadType + 1 && header.ssrc == relayRTX)
        #expect(header.sequenceNumber == rtxSequences[1] &+ 1)
        #expect(packet.withUnsafeBytes { RTPRetransmission.originalSequenceNumber(in: $0, header: header) } == 125)

        // Garbage on the RTX payload type: dropped and counted, nothing reaches Bob.
        alice.send(rtxPacket(alice, rtxSequence: 901, original: 126, payloadBytes: 1))
        alice.send(rtxPacket(alice, rtxSequence: 902, original: 127, payloadBytes: 0))
        #expect(await bob.receive(for: .milliseconds(300)).filter { !$0.isRTCP }.isEmpty)

        let counters = await call.relay.counters()
        #expect(counters.retransmitted == 2 && counters.retransmittedAsRTX == 2)
        #expect(counters.rtxForwarded == 1 && counters.rtxUnwrapped == 0)
        #expect(counters[.rtxTooShort] == 2)
        await call.relay.shutdown()
    }

    @Test("to a receiver without RTX, the sender's RTX arrives as the original packet and the relay resends as before")
    func receiverWithoutRTX() async throws {
        let call = try await call(bobHasRTX: false)
        let (alice, bob) = (call.alice, call.bob)
        #expect(!call.answerB.contains("rtx") && !call.answerB.contains("ssrc-group"))
        for sequence in 100..<110 where sequence != 105 { alice.send(videoPacket(alice, UInt16(sequence))) }
        let first = await bob.receive(for: .seconds(5), rtpCount: 9).filter { !$0.isRTCP }.map(\.bytes)
        #expect(first.count == 9)
        let relayVideo = try RTPHeader.parse(try #require(first.first)).get().ssrc

        // 105 was lost before the relay: Alice's RTX for it reaches Bob as packet 105 itself.
        alice.send(rtxPacket(alice, rtxSequence: 7, original: 105))
        let repaired = await bob.receive(for: .seconds(2), rtpCount: 1).filter { !$0.isRTCP }.map(\.bytes)
        let packet = try #require(repaired.first)
        #expect(packet == videoPacket(alice, 105).withSSRC(relayVideo), "the original, under the relay's video SSRC to Bob")

        // A padding-only RTX (bandwidth probing) has no original to restore.
        alice.send(rtxPacket(alice, rtxSequence: 8, original: 0, payloadBytes: 0, padding: 200))
        // Bob's NACK for 107 is answered as plain media (the same packet again: his SRTP takes it
        // for a replay).
        bob.send(RTCPBuilder.genericNACK(senderSSRC: bob.local.videoSSRC, mediaSSRC: relayVideo, lostSequenceNumbers: [107]),
                 rtcp: true)
        #expect(await bob.receive(for: .milliseconds(500)).filter { !$0.isRTCP }.isEmpty)

        let counters = await call.relay.counters()
        #expect(counters.rtxUnwrapped == 1 && counters.rtxForwarded == 0)
        #expect(counters[.rtxPadding] == 1)
        #expect(counters.retransmitted == 1 && counters.retransmittedAsRTX == 0)
        await call.relay.shutdown()
    }
}

private extension Array where Element == UInt8 {
    func withSSRC(_ ssrc: UInt32) -> [UInt8] {
        var copy = self
        RTPPacketRewriter.rewrite(&copy, ssrc: ssrc)
        return copy
    }
}

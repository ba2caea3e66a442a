@testable import ParleyMediaClient
import ParleyTestSupport
import ParleyRTP
import Testing
@testable import ParleyRelay

/// NACKs (RFC 4585 §6.2.1) as an SFU must answer them: the relay resends, from what it sent the
/// receiver, the video packets the receiver names, exactly as they were; and the NACK still
/// reaches the sender, about the sender's own stream.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct RelayNACKTests {
    func answerSSRC(_ answer: String, mid: String) throws -> UInt32 {
        let sections = answer.components(separatedBy: "m=").dropFirst()
        let section = try #require(sections.first { $0.contains("a=mid:\(mid)\r\n") })
        let line = try #require(section.split(separator: "\r\n").first { $0.hasPrefix("a=ssrc:") })
        return try #require(UInt32(line.dropFirst(7).prefix { $0 != " " }))
    }

    func videoPacket(_ client: MediaClient, _ sequence: UInt16) -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: client.local.videoPayloadType, sequenceNumber: sequence,
                                       timestamp: UInt32(sequence / 4) * 3_000, ssrc: client.local.videoSSRC)
        builder.marker = sequence % 4 == 3
        builder.extensions = [(id: 1, value: Array(client.local.mids.video.utf8))]
        builder.payload = (0..<900).map { UInt8(truncatingIfNeeded: Int(sequence) &* 7 &+ $0) }
        return builder.build()
    }

    @Test("a receiver's NACK is answered from the relay's history; the sender is asked for the rest only")
    func nackAnsweredByTheRelay() async throws {
        // Without RTX, so the resends are the packets as they were (RelayRTXTests: with RTX).
        var configuration = RelayConfiguration(host: "127.0.0.1", port: 0)
        configuration.retransmissions = false
        let relay = try await MediaRelay.start(configuration: configuration)
        let alice = try await MediaClient()
        let bob = try await MediaClient()
        let (a, answerA) = try await relay.createLeg(offer: alice.offer, owner: "call")
        let (b, answerB) = try await relay.createLeg(offer: bob.offer, owner: "call")
        try await alice.connect(answer: answerA)
        try await bob.connect(answer: answerB)
        try await relay.pair(a, b)
        _ = await alice.receive(for: .milliseconds(200))   // the key-frame requests of pairing
        _ = await bob.receive(for: .milliseconds(50))

        for sequence in 100..<120 { alice.send(videoPacket(alice, UInt16(sequence))) }
        let first = await bob.receive(for: .seconds(5), rtpCount: 20).filter { !$0.isRTCP }.map(\.bytes)
        #expect(first.count == 20)

        let relayVideoForBob = try answerSSRC(answerB, mid: "1")
        bob.send(RTCPBuilder.genericNACK(senderSSRC: bob.local.videoSSRC, mediaSSRC: relayVideoForBob,
                                         lostSequenceNumbers: [105, 107, 300]), rtcp: true)
        // Bob had them, so his SRTP takes the two resent packets for replays: the same packets
        // under the same index, which is what the relay sends (300 it never had).
        // Received until both have come (a loaded machine may take longer than a fixed wait).
        var again = await bob.receive(for: .milliseconds(500)).filter { !$0.isRTCP }
        let deadline = ContinuousClock.now + .seconds(5)
        while (bob.transport?.drops.unprotectFailures ?? 0) < 2, ContinuousClock.now < deadline {
            again += await bob.receive(for: .milliseconds(100)).filter { !$0.isRTCP }
        }
        #expect(again.isEmpty)
        #expect(bob.transport?.drops.unprotectFailures == 2)

        let atAlice = try (await alice.receive(for: .milliseconds(500))).filter(\.isRTCP)
            .flatMap { try RTCPPacket.parseCompound($0.bytes).get() }
        let nack = atAlice.compactMap { if case .genericNACK(let nack) = $0 { nack } else { nil } }.first
        #expect(nack?.mediaSSRC == alice.local.videoSSRC && nack?.lostSequenceNumbers == [300],
                "the sender is asked only for what the relay could not resend itself: \(atAlice)")
        #expect(await relay.counters().retransmitted == 2)
        await relay.shutdown()
    }

    @Test func historyKeepsTheLastPacketsBySequence() {
        let history = RetransmissionHistory(capacity: 4, slotSize: 8)
        for sequence: UInt16 in 65_534...65_535 { [UInt8](repeating: UInt8(sequence & 0xFF), count: 3).withUnsafeBytes { history.store($0, sequence: sequence) } }
        for sequence: UInt16 in 0...2 { [UInt8](repeating: UInt8(sequence), count: 5).withUnsafeBytes { history.store($0, sequence: sequence) } }
        #expect(history.packet(65_534) == nil, "its slot went to 2")
        #expect(history.packet(65_535).map(Array.init) == [255, 255, 255])
        #expect(history.packet(2).map(Array.init) == [2, 2, 2, 2, 2])
        [UInt8](repeating: 9, count: 9).withUnsafeBytes { history.store($0, sequence: 3) }   // too large: not kept
        #expect(history.packet(3) == nil && history.packet(65_535) == nil)
    }

    @Test("a kept packet goes out again at most maxResends times, counted anew when its slot is reused")
    func resendsOfOnePacketAreBounded() {
        let history = RetransmissionHistory(capacity: 4, slotSize: 8)
        [UInt8](repeating: 1, count: 3).withUnsafeBytes { history.store($0, sequence: 1) }
        let admitted = (0..<10).filter { _ in history.admitResend(1) }.count
        #expect(admitted == Int(RetransmissionHistory.maxResends))
        [UInt8](repeating: 5, count: 3).withUnsafeBytes { history.store($0, sequence: 5) }   // slot 1 again
        #expect(history.admitResend(5))
    }

    @Test func findsANACKInACompoundByItsHeaders() {
        let receiverReport: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 1]
        let nack = RTCPBuilder.genericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [5])
        let pli = RTCPBuilder.pictureLossIndication(senderSSRC: 1, mediaSSRC: 2)
        (receiverReport + nack).withUnsafeBytes { #expect(RelayEngine.containsNACK($0)) }
        (receiverReport + pli).withUnsafeBytes { #expect(!RelayEngine.containsNACK($0)) }
        [UInt8]().withUnsafeBytes { #expect(!RelayEngine.containsNACK($0)) }
    }
}

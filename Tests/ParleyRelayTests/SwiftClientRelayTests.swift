import Foundation
import ParleyMediaClient
import ParleyRTP
import ParleySRTP
import ParleyTestSupport
import Testing
@testable import ParleyRelay

/// The relay on the wire with clients whose every packet the test chooses: exact rewrites of
/// RTP and RTCP, both SRTP profiles, and mixed profiles across a pair.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct SwiftClientRelayTests {
    func startRelay() async throws -> MediaRelay {
        try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
    }

    func answerSSRC(_ answer: String, mid: String) throws -> UInt32 {
        let sections = answer.components(separatedBy: "m=").dropFirst()
        let section = try #require(sections.first { $0.contains("a=mid:\(mid)\r\n") })
        let line = try #require(section.split(separator: "\r\n").first { $0.hasPrefix("a=ssrc:") })
        return try #require(UInt32(line.dropFirst(7).prefix { $0 != " " }))
    }

    func audioPacket(_ client: MediaClient, _ sequence: UInt16) -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: client.local.audioPayloadType, sequenceNumber: sequence,
                                       timestamp: UInt32(sequence) * 960, ssrc: client.local.audioSSRC)
        builder.extensions = [(id: 1, value: Array(client.local.mids.audio.utf8))]
        builder.payload = (0..<60).map { UInt8(truncatingIfNeeded: Int(sequence) &+ $0) }
        return builder.build()
    }

    @Test("echo: every packet comes back under the answer's SSRC, payload intact; a PLI maps back",
          arguments: [[SRTPProfile.aeadAES128GCM], [SRTPProfile.aes128CMHMACSHA1_80]])
    func echo(profiles: [SRTPProfile]) async throws {
        let relay = try await startRelay()
        let client = try await MediaClient(configuration: MediaClientConfiguration(srtpProfiles: profiles))
        let (leg, answer) = try await relay.createLeg(offer: client.offer, owner: "echo")
        try await relay.echo(leg)
        #expect(try await client.connect(answer: answer) == profiles[0])
        let relayAudio = try answerSSRC(answer, mid: "0")
        let relayVideo = try answerSSRC(answer, mid: "1")

        let sent = (1000..<1100).map { audioPacket(client, UInt16($0)) }
        for packet in sent { client.send(packet) }
        client.send(RTCPBuilder.pictureLossIndication(senderSSRC: client.local.videoSSRC, mediaSSRC: relayVideo), rtcp: true)
        let received = await client.receive(for: .seconds(5), rtpCount: sent.count)
            + (await client.receive(for: .milliseconds(300)))   // and the PLI sent after them

        let rtp = received.filter { !$0.isRTCP }.map(\.bytes)
        #expect(rtp.count == sent.count)
        for (original, echoed) in zip(sent, rtp) {
            var expected = original
            expected[8...11] = [UInt8(relayAudio >> 24), UInt8(relayAudio >> 16 & 0xFF),
                                UInt8(relayAudio >> 8 & 0xFF), UInt8(relayAudio & 0xFF)]
            #expect(echoed == expected)
        }
        let rtcp = try received.filter(\.isRTCP).flatMap { try RTCPPacket.parseCompound($0.bytes).get() }
        #expect(rtcp.contains(.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: relayVideo, mediaSSRC: client.local.videoSSRC))),
                "\(rtcp)")
        let stats = try #require(await relay.stats(for: leg))
        #expect(stats.audio?.received == 100 && stats.audio?.cumulativeLost == 0)
        await relay.shutdown()
    }

    @Test("a pair with different payload types, mids and SRTP profiles; key frames are requested on pairing")
    func pair() async throws {
        let relay = try await startRelay()
        let alice = try await MediaClient(configuration: MediaClientConfiguration(
            srtpProfiles: [.aeadAES128GCM], audioPayloadType: 111, mids: ("0", "1")))
        let bob = try await MediaClient(configuration: MediaClientConfiguration(
            srtpProfiles: [.aes128CMHMACSHA1_80], audioPayloadType: 109, mids: ("a", "v")))
        let (a, answerA) = try await relay.createLeg(offer: alice.offer, owner: "call")
        let (b, answerB) = try await relay.createLeg(offer: bob.offer, owner: "call")
        try await alice.connect(answer: answerA)
        try await bob.connect(answer: answerB)
        try await relay.pair(a, b)

        // Pairing asks both clients for a key frame (RFC 4585 §6.3.1 PLI about their own video).
        let aliceAtPairing = try (await alice.receive(for: .milliseconds(200))).flatMap { try RTCPPacket.parseCompound($0.bytes).get() }
        #expect(aliceAtPairing.contains { if case .pictureLossIndication(let pli) = $0 { pli.mediaSSRC == alice.local.videoSSRC } else { false } })

        for sequence in 0..<50 { alice.send(audioPacket(alice, UInt16(sequence))) }
        let atBob = await bob.receive(for: .seconds(5), rtpCount: 50).filter { !$0.isRTCP }
        #expect(atBob.count == 50)
        let bobAudio = try answerSSRC(answerB, mid: "a")
        for packet in atBob {
            let header = try RTPHeader.parse(packet.bytes).get()
            #expect(header.ssrc == bobAudio)
            #expect(header.payloadType == 109)
            let mid = packet.bytes.withUnsafeBytes { header.extensionValueRange(id: 1, in: $0).map { Array($0.isEmpty ? [] : packet.bytes[$0]) } }
            #expect(mid == Array("a".utf8), "mid rewritten to bob's")
        }
        let statsB = try #require(await relay.stats(for: b))
        #expect(statsB.srtpProfile == "SRTP_AES128_CM_SHA1_80")
        #expect(await relay.counters()[.srtpAuthFail] == 0)
        await relay.shutdown()
    }
}

import ParleyRTP
import ParleySDP
import Testing
@testable import ParleyRelay

/// The rewrite tables between two legs that negotiated different payload types, extension ids,
/// mids and SSRCs (RFC 3550 §5.1, RFC 8285, RFC 4585 §6, RFC 5104 §4.3).
@Suite struct ForwardingPlanTests {
    typealias Ext = SDPRelayParameters.HeaderExtension

    /// A: an aiortc-like leg. Client sends audio 0xA1, video 0xB1 (+ RTX 0xB2); the relay sends it
    /// audio 0xA0, video 0xB0.
    static let legA = LegMedia(sections: [
        LegMediaSection(kind: .audio, mid: "0", payloadType: 111, clockRate: 48000,
                        headerExtensions: [SDPExtMap(id: 1, uri: Ext.mid), SDPExtMap(id: 2, uri: Ext.audioLevel)],
                        remoteSSRCs: [0xA1], localSSRC: 0xA0, relaySends: true),
        LegMediaSection(kind: .video, mid: "1", payloadType: 96, clockRate: 90000,
                        headerExtensions: [SDPExtMap(id: 1, uri: Ext.mid), SDPExtMap(id: 3, uri: Ext.absSendTime)],
                        remoteSSRCs: [0xB1, 0xB2], localSSRC: 0xB0, relaySends: true),
    ])
    /// B: other ids everywhere; its audio mid is longer than A's, its video mid as long.
    static let legB = LegMedia(sections: [
        LegMediaSection(kind: .audio, mid: "audio", payloadType: 109, clockRate: 48000,
                        headerExtensions: [SDPExtMap(id: 4, uri: Ext.mid), SDPExtMap(id: 5, uri: Ext.audioLevel)],
                        remoteSSRCs: [0xC1], localSSRC: 0xC0, relaySends: true),
        LegMediaSection(kind: .video, mid: "v", payloadType: 120, clockRate: 90000,
                        headerExtensions: [SDPExtMap(id: 9, uri: Ext.mid)],
                        remoteSSRCs: [0xD1], localSSRC: 0xD0, relaySends: true),
    ])

    func rewrite(_ packet: [UInt8], _ plan: ForwardingPlan, kind: RelayMediaKind) -> ([UInt8], ForwardingPlan.Outcome) {
        var bytes = packet
        let header = try! RTPHeader.parse(bytes).get()
        let outcome = bytes.withUnsafeMutableBytes { plan.rewriteRTP($0, header: header, kind: kind) }
        return (bytes, outcome)
    }

    @Test("video A→B: SSRC, payload type, extension ids and an equal-length mid become B's")
    func videoToPartner() throws {
        var builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 4242, timestamp: 90000, ssrc: 0xB1)
        builder.extensions = [(id: 1, value: Array("1".utf8)), (id: 3, value: [1, 2, 3])]
        builder.payload = [0x10, 0, 0, 0x9D, 0x01, 0x2A]
        let (out, outcome) = rewrite(builder.build(), ForwardingPlan(from: Self.legA, to: Self.legB), kind: .video)
        #expect(outcome == .forward(.video))
        let header = try RTPHeader.parse(out).get()
        #expect(header.ssrc == 0xD0)
        #expect(header.payloadType == 120)
        #expect(header.sequenceNumber == 4242 && header.timestamp == 90000, "sequence and timestamp pass unchanged")
        let mid = out.withUnsafeBytes { bytes in header.extensionValueRange(id: 9, in: bytes).map { Array(bytes[$0]) } }
        #expect(mid == Array("v".utf8))
        #expect(out.withUnsafeBytes { header.extensionValueRange(id: 3, in: $0) } == nil, "B has no abs-send-time: padded out")
        #expect(Array(out[header.payloadRange]) == [0x10, 0, 0, 0x9D, 0x01, 0x2A])
    }

    @Test("audio A→B: a mid of another length is padded out, audio level keeps its value under B's id")
    func audioToPartner() throws {
        var builder = RTPPacketBuilder(payloadType: 111, sequenceNumber: 1, timestamp: 960, ssrc: 0xA1)
        builder.extensions = [(id: 1, value: Array("0".utf8)), (id: 2, value: [0x85])]
        builder.payload = [1, 2, 3]
        let (out, outcome) = rewrite(builder.build(), ForwardingPlan(from: Self.legA, to: Self.legB), kind: .audio)
        #expect(outcome == .forward(.audio))
        let header = try RTPHeader.parse(out).get()
        #expect(header.ssrc == 0xC0 && header.payloadType == 109)
        #expect(out.withUnsafeBytes { header.extensionValueRange(id: 4, in: $0) } == nil)
        let level = out.withUnsafeBytes { bytes in header.extensionValueRange(id: 5, in: bytes).map { Array(bytes[$0]) } }
        #expect(level == [0x85])
        #expect(out.withUnsafeBytes { header.extensionIsWellFormed(in: $0) })
    }

    @Test("echo A→A: only the SSRC changes, to the relay's answer SSRC")
    func echo() throws {
        var builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 7, timestamp: 3000, ssrc: 0xB1)
        builder.extensions = [(id: 1, value: Array("1".utf8)), (id: 3, value: [9, 9, 9])]
        builder.payload = [0xAA]
        let original = builder.build()
        let (out, _) = rewrite(original, ForwardingPlan(from: Self.legA, to: Self.legA), kind: .video)
        var expected = original
        expected[8...11] = [0, 0, 0, 0xB0]
        #expect(out == expected)
    }

    @Test("a kind the target did not negotiate is dropped as noTarget")
    func missingKind() {
        let audioOnly = LegMedia(sections: [Self.legB.audio!])
        let plan = ForwardingPlan(from: Self.legA, to: audioOnly)
        #expect(!plan.forwards(.video))
        let packet = RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 1, ssrc: 0xB1).build()
        #expect(rewrite(packet, plan, kind: .video).1 == .drop(.noTarget))
    }

    @Test("PLI from B about the relay's stream reaches A's client, from the relay's SSRC on A")
    func pictureLossIndication() throws {
        var packet = RTCPBuilder.pictureLossIndication(senderSSRC: 0xD1, mediaSSRC: 0xD0)
        let ok = packet.withUnsafeMutableBytes { ForwardingPlan(from: Self.legB, to: Self.legA).rewriteRTCP($0) }
        #expect(ok)
        let parsed = try RTCPPacket.parseCompound(packet).get()
        #expect(parsed == [.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 0xB0, mediaSSRC: 0xB1))])
    }

    @Test("receiver reports: reporter and report blocks are mapped; unknown SSRCs are left alone")
    func receiverReport() throws {
        var packet = RTCPBuilder.receiverReport(RTCPReceiverReport(ssrc: 0xA1, reports: [
            RTCPReportBlock(ssrc: 0xB0, fractionLost: 3), RTCPReportBlock(ssrc: 0x1234)]))
        let ok = packet.withUnsafeMutableBytes { ForwardingPlan(from: Self.legA, to: Self.legB).rewriteRTCP($0) }
        #expect(ok)
        guard case .receiverReport(let report) = try RTCPPacket.parseCompound(packet).get().first else {
            Issue.record("not a receiver report")
            return
        }
        #expect(report.ssrc == 0xC0)
        #expect(report.reports.map(\.ssrc) == [0xD1, 0x1234])
        #expect(report.reports[0].fractionLost == 3)
    }

    @Test("malformed RTCP is refused and left untouched")
    func malformedRTCP() {
        var packet: [UInt8] = [0x81, 201, 0, 7, 0, 0, 0, 0xA1]  // length says 32 bytes, 8 present
        let copy = packet
        let ok = packet.withUnsafeMutableBytes { ForwardingPlan(from: Self.legA, to: Self.legB).rewriteRTCP($0) }
        #expect(!ok)
        #expect(packet == copy)
    }

    @Test("payload types map to kinds; SSRCs are learned from RTP")
    func legMedia() {
        var media = Self.legA
        #expect(media.kind(ofPayloadType: 111) == .audio)
        #expect(media.kind(ofPayloadType: 96) == .video)
        #expect(media.kind(ofPayloadType: 97) == nil)
        #expect(media.isPrimary(0xB1, for: .video))
        let learned = media.learnRemoteSSRC(0xEE, for: .video)
        let learnedAgain = media.learnRemoteSSRC(0xEE, for: .video)
        #expect(learned && !learnedAgain)
        #expect(media.video?.remoteSSRCs == [0xEE, 0xB1, 0xB2])
        let plan = ForwardingPlan(from: Self.legB, to: media)
        #expect(plan.rtcpMedia[0xD0] == 0xEE)
    }
}

import Testing
@testable import ParleyRTP

@Suite("RTCP compound parsing (RFC 3550 §6, RFC 4585, RFC 5104)")
struct RTCPParseTests {
    @Test("Chromium-style SR + SDES")
    func senderReportAndSDES() throws {
        let packets = try RTCPPacket.parseCompound(RTCPVectors.senderReportAndSDES).get()
        #expect(packets.count == 2)
        guard case .senderReport(let sr) = packets[0] else { Issue.record("expected SR"); return }
        #expect(sr.ssrc == 376_699_517)
        #expect(sr.ntpTimestamp == 0xE94F_9A6C_2B02_0C4A)
        #expect(sr.rtpTimestamp == 120_000)
        #expect(sr.packetCount == 125)
        #expect(sr.octetCount == 10000)
        #expect(sr.reports == [RTCPReportBlock(
            ssrc: 3_574_137_062, fractionLost: 10, cumulativeLost: -3, extendedHighestSequence: 0x0001_1A2B,
            jitter: 32, lastSenderReport: 0x9A6C_2B02, delaySinceLastSenderReport: 0x8000)])
        guard case .sourceDescription(let sdes) = packets[1] else { Issue.record("expected SDES"); return }
        #expect(sdes.chunks.count == 1)
        #expect(sdes.chunks[0].ssrc == 376_699_517)
        #expect(sdes.chunks[0].cname == "kIqmRVxs0C2132ye")
    }

    @Test("Iterating a compound gives each packet's type and range")
    func iterate() {
        RTCPVectors.receiverFeedback.withUnsafeBytes { raw in
            var iterator = RTCPCompoundIterator(raw)
            var seen: [(UInt8, UInt8, Range<Int>)] = []
            while let view = iterator.next() { seen.append((view.packetType, view.format, view.range)) }
            #expect(iterator.error == nil)
            #expect(seen.map(\.0) == [201, 206, 205, 206, 206, 205])
            #expect(seen.map(\.1) == [1, 1, 1, 4, 15, 15])
            #expect(seen.map(\.2) == [0..<32, 32..<44, 44..<60, 60..<80, 80..<104, 104..<128])
        }
        #expect(RTCPCompound.validate(RTCPVectors.receiverFeedback) == nil)
    }

    @Test("RR, PLI, NACK, FIR, REMB and transport-cc decode")
    func feedback() throws {
        let packets = try RTCPPacket.parseCompound(RTCPVectors.receiverFeedback).get()
        #expect(packets.count == 6)
        #expect(packets[0] == .receiverReport(RTCPReceiverReport(ssrc: 1, reports: [
            RTCPReportBlock(ssrc: 3_574_137_062, extendedHighestSequence: 6699, jitter: 16)])))
        #expect(packets[1] == .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 3_574_137_062)))
        guard case .genericNACK(let nack) = packets[2] else { Issue.record("expected NACK"); return }
        #expect(nack.mediaSSRC == 3_574_137_062)
        #expect(nack.items == [RTCPGenericNACK.Item(packetID: 6699, bitmask: 5)])
        #expect(nack.lostSequenceNumbers == [6699, 6700, 6702])
        #expect(packets[3] == .fullIntraRequest(RTCPFullIntraRequest(
            senderSSRC: 1, entries: [.init(ssrc: 3_574_137_062, sequenceNumber: 7)])))
        #expect(packets[4] == .remb(RTCPREMB(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [3_574_137_062])))
        #expect(packets[5] == .transportWideFeedback(RTCPTransportWideFeedback(
            senderSSRC: 1, mediaSSRC: 3_574_137_062, baseSequenceNumber: 5, packetStatusCount: 2,
            referenceTime: 258, feedbackPacketCount: 0)))
    }

    @Test("XR is recognised and passed through")
    func extendedReport() throws {
        let packets = try RTCPPacket.parseCompound(RTCPVectors.receiverReportAndXR).get()
        #expect(packets == [.receiverReport(RTCPReceiverReport(ssrc: 3_574_137_062)), .other(packetType: 207, format: 0)])
    }

    @Test("BYE with a reason, and APP as pass-through")
    func byeAndApp() throws {
        let bytes: [UInt8] = [
            0x82, 0xcb, 0x00, 0x04,  // BYE, SC=2, length 4 words (20 bytes)
            0x00, 0x00, 0x00, 0x01,  // SSRC 1
            0x00, 0x00, 0x00, 0x02,  // SSRC 2
            0x04, 0x62, 0x79, 0x65,  // reason length 4: "bye!"
            0x21, 0x00, 0x00, 0x00,  // ..."!" and padding
            0x80, 0xcc, 0x00, 0x02,  // APP, subtype 0, length 2 words
            0x00, 0x00, 0x00, 0x01,  // SSRC 1
            0x74, 0x65, 0x73, 0x74,  // name "test"
        ]
        let packets = try RTCPPacket.parseCompound(bytes).get()
        #expect(packets == [.bye(RTCPBye(ssrcs: [1, 2], reason: "bye!")), .other(packetType: 204, format: 0)])
    }

    @Test("RTCP padding on the last packet is honoured")
    func padding() throws {
        var bytes = RTCPBuilder.pictureLossIndication(senderSSRC: 1, mediaSSRC: 2)
        bytes[0] |= 0x20
        bytes[3] = 3  // length 3 words: 8-byte body + 4 bytes padding
        bytes += [0, 0, 0, 4]
        let packets = try RTCPPacket.parseCompound(bytes).get()
        #expect(packets == [.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 2))])
    }

    @Test("Demux: RTCP packet types by second byte (RFC 5761 §4), first bytes by RFC 7983")
    func demux() {
        #expect(PacketKind.isRTCP(secondByte: RTCPVectors.senderReportAndSDES[1]))
        #expect(!PacketKind.isRTCP(secondByte: RTPVectors.videoWithOneByteExtension[1]))
        #expect(!PacketKind.isRTCP(secondByte: RTPVectors.audioWithCSRCsAndPadding[1]))  // M=1 PT=111 is 239
        #expect(PacketKind.classify(firstByte: 0) == .stun)
        #expect(PacketKind.classify(firstByte: 3) == .stun)
        #expect(PacketKind.classify(firstByte: 4) == .unknown)
        #expect(PacketKind.classify(firstByte: 17) == .zrtp)
        #expect(PacketKind.classify(firstByte: 20) == .dtls)
        #expect(PacketKind.classify(firstByte: 22) == .dtls)  // handshake record
        #expect(PacketKind.classify(firstByte: 63) == .dtls)
        #expect(PacketKind.classify(firstByte: 64) == .turnChannel)
        #expect(PacketKind.classify(firstByte: 127) == .unknown)
        #expect(PacketKind.classify(firstByte: 0x80) == .rtpOrRTCP)
        #expect(PacketKind.classify(firstByte: 191) == .rtpOrRTCP)
        #expect(PacketKind.classify(firstByte: 192) == .unknown)
    }
}

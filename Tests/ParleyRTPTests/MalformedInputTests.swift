import Testing
@testable import ParleyRTP
import ParleyTestSupport

@Suite("Malformed RTP and RTCP are rejected without crashing")
struct MalformedInputTests {
    private func rtpError(_ bytes: [UInt8]) -> RTPParseError? {
        if case .failure(let error) = RTPHeader.parse(bytes) { return error }
        return nil
    }

    private func rtcpError(_ bytes: [UInt8]) -> RTCPParseError? {
        if case .failure(let error) = RTCPPacket.parseCompound(bytes) { return error }
        return nil
    }

    @Test("RTP: short, wrong version, CSRCs or extension past the end, bad padding")
    func rtp() {
        #expect(rtpError([]) == .tooShort)
        #expect(rtpError(Array(RTPVectors.videoWithOneByteExtension.prefix(11))) == .tooShort)
        var bytes = RTPVectors.videoWithOneByteExtension
        bytes[0] = 0x50  // version 1
        #expect(rtpError(bytes) == .badVersion)
        bytes[0] = 0x10  // version 0
        #expect(rtpError(bytes) == .badVersion)
        bytes = RTPVectors.videoWithOneByteExtension
        bytes[0] = 0x8F  // 15 CSRCs = 60 bytes, more than the packet
        #expect(rtpError(bytes) == .tooShort)
        bytes = RTPVectors.videoWithOneByteExtension
        bytes[15] = 0x09  // extension length 9 words
        #expect(rtpError(bytes) == .extensionOverflow)
        #expect(rtpError(Array(RTPVectors.videoWithOneByteExtension.prefix(14))) == .tooShort)
        bytes = RTPVectors.audioWithCSRCsAndPadding
        bytes[bytes.count - 1] = 0  // padding count 0
        #expect(rtpError(bytes) == .badPadding)
        bytes[bytes.count - 1] = 200  // more padding than the packet
        #expect(rtpError(bytes) == .badPadding)
    }

    @Test("RTCP: version, length past the end, counts past the body, trailing bytes, bad padding")
    func rtcp() {
        #expect(rtcpError([]) == .tooShort)
        var bytes = RTCPVectors.senderReportAndSDES
        bytes[0] = 0x41  // version 1
        #expect(rtcpError(bytes) == .badVersion)
        bytes = RTCPVectors.senderReportAndSDES
        bytes[3] = 0x20  // SR length 32 words
        #expect(rtcpError(bytes) == .lengthOverflow)
        bytes = RTCPVectors.senderReportAndSDES
        bytes[0] = 0x82  // SR claims 2 report blocks in room for 1
        #expect(rtcpError(bytes) == .countOverflow)
        bytes = RTCPVectors.senderReportAndSDES
        bytes[61] = 0x30  // CNAME length 48 runs past the SDES packet
        #expect(rtcpError(bytes) == .countOverflow)
        #expect(rtcpError(RTCPVectors.senderReportAndSDES + [0x81, 0xc9]) == .tooShort)
        #expect(rtcpError(Array(RTCPVectors.senderReportAndSDES.dropLast(4))) == .lengthOverflow)
        bytes = RTCPBuilder.pictureLossIndication(senderSSRC: 1, mediaSSRC: 2)
        bytes[0] |= 0x20
        bytes[11] = 0  // padding count 0
        #expect(rtcpError(bytes) == .badPadding)
        // REMB claiming 5 SSRCs with room for one.
        bytes = Array(RTCPVectors.receiverFeedback[80..<104])
        bytes[16] = 5
        #expect(rtcpError(bytes) == .countOverflow)
        // BYE reason longer than the packet.
        #expect(rtcpError([0x81, 0xcb, 0x00, 0x02, 0, 0, 0, 1, 9, 0x61, 0x62, 0x63]) == .countOverflow)
        // A feedback packet without its two SSRCs.
        #expect(rtcpError([0x81, 0xce, 0x00, 0x01, 0, 0, 0, 1]) == .tooShort)
    }

    @Test("Every truncation of every vector is handled")
    func truncations() {
        let vectors = [RTPVectors.videoWithOneByteExtension, RTPVectors.audioWithCSRCsAndPadding, RTPVectors.twoByteExtension,
                       RTCPVectors.senderReportAndSDES, RTCPVectors.receiverFeedback, RTCPVectors.receiverReportAndXR]
        for vector in vectors {
            for count in 0...vector.count {
                exercise(Array(vector.prefix(count)))
            }
        }
        // RTCP truncated anywhere but a packet boundary must fail.
        for count in 1..<RTCPVectors.receiverFeedback.count where ![32, 44, 60, 80, 104].contains(count) {
            #expect(rtcpError(Array(RTCPVectors.receiverFeedback.prefix(count))) != nil, "prefix \(count)")
        }
    }

    @Test("Random bytes and random mutations never crash parsing or rewriting")
    func fuzz() {
        var generator = SeededRandom(seed: 0x5254_5021)
        let seeds = [RTPVectors.videoWithOneByteExtension, RTPVectors.audioWithCSRCsAndPadding, RTPVectors.twoByteExtension,
                     RTCPVectors.senderReportAndSDES, RTCPVectors.receiverFeedback, RTCPVectors.receiverReportAndXR]
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 96)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }  // version 2, so parsing goes deep
            } else {
                bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
                if generator.next() % 3 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))) }
            }
            exercise(bytes)
        }
    }

    /// Runs every reader and in-place writer over `bytes`.
    private func exercise(_ input: [UInt8]) {
        var bytes = input
        if case .success(let header) = RTPHeader.parse(bytes) {
            bytes.withUnsafeBytes { raw in
                for element in RTPHeaderExtensionIterator(raw, header: header) { _ = raw[element.valueRange] }
                _ = header.absSendTime(id: 2, in: raw)
                _ = header.csrc(0, in: raw)
            }
            header.rewriteExtensionIDs(in: &bytes, using: RTPHeaderExtensionIDMap([1: 2, 2: 15, 3: 3]))
            RTPPacketRewriter.rewrite(&bytes, ssrc: 1, payloadType: 2, sequenceNumber: 3, timestamp: 4)
        }
        _ = RTCPPacket.parseCompound(bytes)
        RTCPRewriter.rewriteSSRCs(in: &bytes, sender: SSRCMap([(from: 1, to: 2)]), media: SSRCMap([(from: 3, to: 4)]))
    }
}

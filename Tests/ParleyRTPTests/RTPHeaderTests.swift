import Testing
@testable import ParleyRTP

@Suite("RTP header parsing (RFC 3550 §5.1)")
struct RTPHeaderTests {
    @Test("Video packet with a one-byte extension")
    func video() throws {
        let bytes = RTPVectors.videoWithOneByteExtension
        let header = try RTPHeader.parse(bytes).get()
        #expect(!header.padding)
        #expect(!header.marker)
        #expect(header.payloadType == 96)
        #expect(header.sequenceNumber == 6699)
        #expect(header.timestamp == 1_000_000)
        #expect(header.ssrc == 3_574_137_062)
        #expect(header.csrcCount == 0)
        #expect(header.extensionProfile == 0xBEDE)
        #expect(header.extensionForm == .oneByte)
        #expect(header.extensionRange == 16..<28)
        #expect(header.headerLength == 28)
        #expect(header.payloadRange == 28..<36)
        #expect(header.paddingLength == 0)
    }

    @Test("Audio packet with CSRCs, marker and padding")
    func audio() throws {
        let bytes = RTPVectors.audioWithCSRCsAndPadding
        let header = try RTPHeader.parse(bytes).get()
        #expect(header.padding)
        #expect(header.marker)
        #expect(header.payloadType == 111)
        #expect(header.sequenceNumber == 1)
        #expect(header.timestamp == 960)
        #expect(header.ssrc == 376_699_517)
        #expect(header.csrcCount == 2)
        bytes.withUnsafeBytes { raw in
            #expect(header.csrc(0, in: raw) == 10)
            #expect(header.csrc(1, in: raw) == 11)
            #expect(header.csrc(2, in: raw) == nil)
        }
        #expect(header.extensionRange == 24..<28)
        #expect(header.paddingLength == 4)
        #expect(header.payloadRange == 28..<31)
    }

    @Test("Packet without extension or CSRCs")
    func plain() throws {
        let bytes: [UInt8] = [0x80, 0x08, 0xff, 0xff, 0, 0, 0, 160, 0, 0, 0, 9, 0xd5]
        let header = try RTPHeader.parse(bytes).get()
        #expect(header.payloadType == 8)
        #expect(header.sequenceNumber == 65535)
        #expect(header.extensionProfile == nil)
        #expect(header.extensionForm == nil)
        #expect(header.payloadRange == 12..<13)
    }

    @Test("Builder output parses back to the same fields")
    func builderRoundTrip() throws {
        var builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 6699, timestamp: 1_000_000, ssrc: 3_574_137_062)
        builder.extensions = [(2, [0x12, 0x34, 0x56]), (3, [0x00, 0x05]), (4, [0x31])]
        builder.payload = Array(RTPVectors.videoWithOneByteExtension[28...])
        #expect(builder.build() == RTPVectors.videoWithOneByteExtension)

        builder = RTPPacketBuilder(payloadType: 111, sequenceNumber: 1, timestamp: 960, ssrc: 376_699_517)
        builder.marker = true
        builder.csrcs = [10, 11]
        builder.extensions = [(1, [0xAA])]
        builder.payload = [0xFC, 0xFF, 0xFE]
        builder.paddingLength = 4
        #expect(builder.build() == RTPVectors.audioWithCSRCsAndPadding)

        builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 7, timestamp: 0, ssrc: 1)
        builder.extensions = [(15, []), (200, Array("abc".utf8))]
        builder.payload = [0xDE, 0xAD]
        #expect(builder.build() == RTPVectors.twoByteExtension)
    }

    @Test("In-place rewrite of SSRC, payload type, sequence number and timestamp")
    func rewrite() throws {
        var bytes = RTPVectors.audioWithCSRCsAndPadding
        #expect(RTPPacketRewriter.rewrite(&bytes, ssrc: 0xCAFE_BABE, payloadType: 109, sequenceNumber: 40000, timestamp: 7))
        let header = try RTPHeader.parse(bytes).get()
        #expect(header.ssrc == 0xCAFE_BABE)
        #expect(header.payloadType == 109)
        #expect(header.marker)  // kept
        #expect(header.sequenceNumber == 40000)
        #expect(header.timestamp == 7)
        // Nothing but those fields changed.
        #expect(Array(bytes[12...]) == Array(RTPVectors.audioWithCSRCsAndPadding[12...]))
        #expect(bytes[0] == RTPVectors.audioWithCSRCsAndPadding[0])

        bytes.withUnsafeMutableBytes { buffer in
            #expect(RTPPacketRewriter.setMarker(false, in: buffer))
            #expect(RTPPacketRewriter.setPayloadType(0xFF, in: buffer))  // masked to 127
            #expect(RTPPacketRewriter.setSSRC(1, in: buffer))
            #expect(RTPPacketRewriter.setSequenceNumber(2, in: buffer))
            #expect(RTPPacketRewriter.setTimestamp(3, in: buffer))
        }
        let again = try RTPHeader.parse(bytes).get()
        #expect(!again.marker)
        #expect(again.payloadType == 127)
        #expect((again.ssrc, again.sequenceNumber, again.timestamp) == (1, 2, 3))
    }

    @Test("Rewrites refuse buffers that are not RTP")
    func rewriteRefuses() {
        var short: [UInt8] = [0x80, 0x60, 0, 1]
        #expect(!RTPPacketRewriter.rewrite(&short, ssrc: 1))
        #expect(short == [0x80, 0x60, 0, 1])
        var version1 = RTPVectors.videoWithOneByteExtension
        version1[0] = 0x50
        #expect(!RTPPacketRewriter.rewrite(&version1, ssrc: 1))
    }
}

import Testing
@testable import ParleyRTP

/// RFC 4588 §4: an RTX packet is the original's header under the RTX stream's SSRC, payload type
/// and sequence number, with the original sequence number (OSN) before the original payload.
@Suite("RTX wrap and unwrap (RFC 4588)")
struct RTPRetransmissionTests {
    /// A VP8 packet with a mid extension, marker set, and 4 bytes of padding.
    static func original() -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 0x1234, timestamp: 0xCAFE_F00D, ssrc: 0x1111_1111)
        builder.marker = true
        builder.extensions = [(id: 1, value: Array("1".utf8))]
        builder.payload = [0x90, 0x80, 0x05, 0xAA, 0xBB, 0xCC]
        builder.paddingLength = 4
        return builder.build()
    }

    func wrap(_ original: [UInt8], capacity: Int = 1_500) -> [UInt8]? {
        guard case .success(let header) = RTPHeader.parse(original) else { return nil }
        var destination = [UInt8](repeating: 0xEE, count: capacity)
        let length = original.withUnsafeBytes { source in
            destination.withUnsafeMutableBytes {
                RTPRetransmission.wrap(source, header: header, into: $0, payloadType: 97, sequenceNumber: 0x0007, ssrc: 0x2222_2222)
            }
        }
        return length.map { Array(destination[0..<$0]) }
    }

    @Test("wrapping keeps the header and puts the OSN before the payload; the bytes, annotated")
    func wrapBytes() throws {
        let original = Self.original()
        let rtx = try #require(wrap(original))
        #expect(rtx.count == original.count + 2)
        #expect(rtx[0] == original[0])                       // V=2, P=1, X=1: as the original
        #expect(rtx[1] == 0x80 | 97)                         // marker kept, PT 97 (rtx)
        #expect(Array(rtx[2..<4]) == [0x00, 0x07])            // the RTX stream's own sequence
        #expect(Array(rtx[4..<8]) == [0xCA, 0xFE, 0xF0, 0x0D]) // the original timestamp
        #expect(Array(rtx[8..<12]) == [0x22, 0x22, 0x22, 0x22]) // the RTX SSRC
        let header = try RTPHeader.parse(rtx).get()
        #expect(Array(rtx[12..<header.payloadRange.lowerBound]) == Array(original[12..<header.payloadRange.lowerBound]),
                "extension as it was")
        #expect(Array(rtx[header.payloadRange]) == [0x12, 0x34, 0x90, 0x80, 0x05, 0xAA, 0xBB, 0xCC], "OSN, then the payload")
        #expect(header.paddingLength == 4)
        #expect(rtx.withUnsafeBytes { RTPRetransmission.originalSequenceNumber(in: $0, header: header) } == 0x1234)
        #expect(wrap(original, capacity: original.count + 1) == nil, "no room: nothing written")
    }

    @Test("unwrapping an RTX packet gives the original back, byte for byte")
    func roundTrip() throws {
        let original = Self.original()
        var rtx = try #require(wrap(original))
        let header = try RTPHeader.parse(rtx).get()
        let length = rtx.withUnsafeMutableBytes { RTPRetransmission.unwrap($0, header: header, payloadType: 96, ssrc: 0x1111_1111) }
        #expect(length == original.count)
        #expect(Array(rtx[0..<(length ?? 0)]) == original)
    }

    @Test("an RTX payload without a whole OSN is refused, and padding alone is told apart",
          arguments: [0, 1])
    func tooShort(payloadBytes: Int) throws {
        var builder = RTPPacketBuilder(payloadType: 97, sequenceNumber: 9, timestamp: 1, ssrc: 0x2222_2222)
        builder.payload = Array(repeating: 0x12, count: payloadBytes)
        var packet = builder.build()
        let header = try RTPHeader.parse(packet).get()
        let before = packet
        #expect(packet.withUnsafeMutableBytes { RTPRetransmission.unwrap($0, header: header, payloadType: 96, ssrc: 1) } == nil)
        #expect(packet == before, "nothing written")
        #expect(!RTPRetransmission.isPaddingOnly(header))

        builder.payload = []
        builder.paddingLength = 255
        let padding = try RTPHeader.parse(builder.build()).get()
        #expect(RTPRetransmission.isPaddingOnly(padding))
    }
}

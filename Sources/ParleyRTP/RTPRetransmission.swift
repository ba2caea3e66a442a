/// RTP retransmission payload format (RFC 4588 §4): an RTX packet carries the original packet's
/// header fields (timestamp, marker, CSRCs, extensions) under its own SSRC, payload type and
/// sequence number, and its payload starts with the original sequence number (OSN, 2 bytes)
/// followed by the original payload.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP Header                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            OSN                |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
/// |                  Original RTP Packet Payload                  |
/// ```
///
/// Both directions work on caller-owned memory and allocate nothing.
public enum RTPRetransmission {
    /// Size of the OSN field.
    public static let osnSize = 2

    /// The original sequence number of the RTX packet `header` was parsed from; nil when the
    /// payload (padding excluded) is shorter than the OSN field.
    public static func originalSequenceNumber(in packet: UnsafeRawBufferPointer, header: RTPHeader) -> UInt16? {
        guard header.payloadRange.count >= osnSize, header.payloadRange.upperBound <= packet.count else { return nil }
        return packet.readBE16(at: header.payloadRange.lowerBound)
    }

    /// Whether an RTX packet carries only padding (no OSN, no payload): what libwebrtc sends on
    /// the RTX stream to probe bandwidth.
    public static func isPaddingOnly(_ header: RTPHeader) -> Bool {
        header.padding && header.payloadRange.isEmpty
    }

    /// Turns the RTX packet filling `buffer` back into the original packet in place (RFC 4588
    /// §4): the OSN becomes the sequence number, the payload (and any padding) moves 2 bytes
    /// forward, and the payload type and SSRC become `payloadType` and `ssrc`. Returns the
    /// original packet's length; nil, with nothing written, when there is no OSN.
    public static func unwrap(_ buffer: UnsafeMutableRawBufferPointer, header: RTPHeader,
                              payloadType: UInt8, ssrc: UInt32) -> Int? {
        guard let osn = originalSequenceNumber(in: UnsafeRawBufferPointer(buffer), header: header),
              let base = buffer.baseAddress else { return nil }
        let start = header.payloadRange.lowerBound
        let tail = buffer.count - start - osnSize   // payload and padding after the OSN
        if tail > 0 { (base + start).copyMemory(from: base + start + osnSize, byteCount: tail) }
        RTPPacketRewriter.rewrite(buffer, ssrc: ssrc, payloadType: payloadType, sequenceNumber: osn)
        return buffer.count - osnSize
    }

    /// Writes into `destination` the RTX packet for the original packet `original` (whose
    /// header is `header`): its header with `payloadType`, `sequenceNumber` and `ssrc` of the
    /// RTX stream, the OSN, then the original payload and padding. Returns the RTX packet's
    /// length; nil, with nothing written, when `destination` is too small.
    public static func wrap(_ original: UnsafeRawBufferPointer, header: RTPHeader, into destination: UnsafeMutableRawBufferPointer,
                            payloadType: UInt8, sequenceNumber: UInt16, ssrc: UInt32) -> Int? {
        let start = header.payloadRange.lowerBound
        let length = original.count + osnSize
        guard start <= original.count, header.headerLength >= RTPHeader.fixedSize, length <= destination.count,
              let from = original.baseAddress, let to = destination.baseAddress else { return nil }
        to.copyMemory(from: from, byteCount: start)
        destination.writeBE16(header.sequenceNumber, at: start)
        if original.count > start {
            (to + start + osnSize).copyMemory(from: from + start, byteCount: original.count - start)
        }
        let packet = UnsafeMutableRawBufferPointer(rebasing: destination[0..<length])
        RTPPacketRewriter.rewrite(packet, ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber)
        return length
    }
}

/// RFC 4571 framing: how RTP, RTCP — and, for ICE over TCP (RFC 6544 §3), STUN and DTLS — travel
/// on a byte stream. Each packet is preceded by its length as a 16-bit big-endian integer:
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             LENGTH            |  packet (LENGTH bytes) ...    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// A pure codec over bytes (no socket, no buffer type): the relay's and the media client's
/// stream decoders call ``next(in:maxLength:)`` on what they have read so far.
public enum RFC4571Frame {
    /// Bytes of the LENGTH field.
    public static let headerSize = 2
    /// The longest packet the field can describe.
    public static let maxLength = 65_535

    /// What the start of a byte stream holds.
    public enum Next: Sendable, Equatable {
        /// A whole frame: its packet is `bytes[headerSize ..< headerSize + length]`, and the next
        /// frame starts at `headerSize + length`. `length` may be 0: an empty packet, which the
        /// framing allows and the reader drops like any packet it cannot classify.
        case frame(length: Int)
        /// Not enough bytes yet for the header or for the packet it announces.
        case incomplete
        /// The header announces more than the reader accepts: the stream is not media (or not
        /// from a peer worth reading), and nothing after it can be trusted to be aligned.
        case tooLong(Int)
    }

    /// Looks at the front of `bytes`: a whole frame, too little, or a length over `maxLength`.
    /// The length is judged as soon as the header is in, before the packet arrives.
    @inlinable
    public static func next(in bytes: UnsafeRawBufferPointer, maxLength: Int) -> Next {
        guard bytes.count >= headerSize else { return .incomplete }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard length <= maxLength else { return .tooLong(length) }
        return bytes.count - headerSize >= length ? .frame(length: length) : .incomplete
    }

    /// The header for a packet of `length` bytes; nil when the field cannot hold it.
    @inlinable
    public static func header(length: Int) -> (UInt8, UInt8)? {
        guard (0...Self.maxLength).contains(length) else { return nil }
        return (UInt8(length >> 8), UInt8(truncatingIfNeeded: length))
    }

    /// `packet` with its header in front (tests and simple writers; the relay frames in place).
    public static func framed(_ packet: [UInt8]) -> [UInt8]? {
        guard let (high, low) = header(length: packet.count) else { return nil }
        return [high, low] + packet
    }
}

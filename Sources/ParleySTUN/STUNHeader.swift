/// The fixed 20-byte STUN header (RFC 8489 §5) and quick checks on it.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0|     STUN Message Type     |         Message Length        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Magic Cookie                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     Transaction ID (96 bits)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public enum STUNHeader {
    /// Header size in bytes.
    public static let size = 20
    /// The magic cookie, 0x2112A442 (RFC 8489 §5).
    public static let magicCookie: UInt32 = 0x2112_A442

    /// Whether a datagram's first byte falls in the STUN range 0–3 (RFC 7983 §7).
    @inlinable
    public static func isSTUN(firstByte: UInt8) -> Bool {
        firstByte < 4
    }

    /// A cheap test that `bytes` looks like a STUN message: long enough, top bits clear,
    /// magic cookie present, and a length field that matches the datagram (RFC 8489 §6, §7.3).
    public static func looksLikeSTUN(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= size, bytes[0] & 0xC0 == 0,
              bytes.readBE32(at: 4) == magicCookie else { return false }
        let length = Int(bytes.readBE16(at: 2))
        return length & 3 == 0 && length + size == bytes.count
    }
}

/// Why a datagram was not accepted as a STUN message.
public enum STUNParseError: Error, Sendable, Hashable {
    /// Fewer than 20 bytes.
    case tooShort
    /// One of the two most significant bits of the type is set (RFC 8489 §6).
    case notSTUN
    /// The magic cookie is not 0x2112A442 (an RFC 3489 peer, or not STUN at all).
    case badMagicCookie
    /// The message length is not a multiple of 4 (RFC 8489 §5).
    case lengthNotMultipleOfFour
    /// The message length disagrees with the datagram size.
    case lengthMismatch
    /// An attribute's value runs past the end of the message.
    case truncatedAttribute(type: UInt16)
    /// A known attribute has a value of the wrong size or content.
    case malformedAttribute(type: UInt16)
    /// Something other than padding follows FINGERPRINT, which must come last (RFC 8489 §14.7).
    case attributeAfterFingerprint
}

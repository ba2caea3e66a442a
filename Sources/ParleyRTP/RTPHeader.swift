/// Why bytes were not accepted as an RTP packet.
public enum RTPParseError: Error, Sendable, Hashable {
    /// Fewer bytes than the fixed header, CSRC list, or extension header need.
    case tooShort
    /// The version field is not 2.
    case badVersion
    /// The header extension's length runs past the end of the packet.
    case extensionOverflow
    /// The padding count is zero or larger than the payload (RFC 3550 §5.1).
    case badPadding
}

/// The fixed RTP header (RFC 3550 §5.1) plus where the CSRCs, header extension and payload lie.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// A plain value: parsing reads the bytes in place and copies nothing.
public struct RTPHeader: Sendable, Hashable {
    /// The fixed header size.
    public static let fixedSize = 12

    public var padding: Bool
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// Number of CSRCs (0–15); read them with ``csrc(_:in:)``.
    public var csrcCount: Int
    /// The extension's "defined by profile" field when the X bit is set (RFC 3550 §5.3.1):
    /// 0xBEDE for RFC 8285 one-byte elements, 0x100X for two-byte elements.
    public var extensionProfile: UInt16?
    /// The extension data after its 4-byte header; empty when there is none.
    public var extensionRange: Range<Int>
    /// The payload, without padding.
    public var payloadRange: Range<Int>
    /// Padding bytes at the end, the last of which holds their count.
    public var paddingLength: Int

    /// Header size: fixed part, CSRCs and extension; the payload starts here.
    public var headerLength: Int { payloadRange.lowerBound }

    /// The RFC 8285 form of the header extension, if it uses one.
    public var extensionForm: RTPHeaderExtensionForm? {
        extensionProfile.flatMap(RTPHeaderExtensionForm.init(profile:))
    }

    /// Parses and validates the header of an RTP packet that fills `bytes`.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<RTPHeader, RTPParseError> {
        let count = bytes.count
        guard count >= fixedSize else { return .failure(.tooShort) }
        let first = bytes[0]
        guard first >> 6 == 2 else { return .failure(.badVersion) }
        let csrcCount = Int(first & 0x0F)
        var offset = fixedSize + 4 * csrcCount
        guard offset <= count else { return .failure(.tooShort) }

        var profile: UInt16?
        var extensionRange = offset..<offset
        if first & 0x10 != 0 {
            guard count - offset >= 4 else { return .failure(.tooShort) }
            profile = bytes.readBE16(at: offset)
            let length = Int(bytes.readBE16(at: offset + 2)) * 4
            let start = offset + 4
            guard length <= count - start else { return .failure(.extensionOverflow) }
            extensionRange = start..<(start + length)
            offset = start + length
        }

        var paddingLength = 0
        if first & 0x20 != 0 {
            guard count > offset else { return .failure(.badPadding) }
            paddingLength = Int(bytes[count - 1])
            guard paddingLength > 0, paddingLength <= count - offset else { return .failure(.badPadding) }
        }

        let second = bytes[1]
        return .success(RTPHeader(
            padding: first & 0x20 != 0,
            marker: second & 0x80 != 0,
            payloadType: second & 0x7F,
            sequenceNumber: bytes.readBE16(at: 2),
            timestamp: bytes.readBE32(at: 4),
            ssrc: bytes.readBE32(at: 8),
            csrcCount: csrcCount,
            extensionProfile: profile,
            extensionRange: extensionRange,
            payloadRange: offset..<(count - paddingLength),
            paddingLength: paddingLength))
    }

    /// Parses the header of an RTP packet held in an array, without copying it.
    public static func parse(_ bytes: [UInt8]) -> Result<RTPHeader, RTPParseError> {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// The CSRC at `index`, read from the packet this header was parsed from.
    public func csrc(_ index: Int, in bytes: UnsafeRawBufferPointer) -> UInt32? {
        let offset = RTPHeader.fixedSize + 4 * index
        guard index >= 0, index < csrcCount, offset + 4 <= bytes.count else { return nil }
        return bytes.readBE32(at: offset)
    }
}

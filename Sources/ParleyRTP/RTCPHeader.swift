/// RTCP packet types (RFC 3550 §12.1, RFC 4585 §6.1, RFC 3611 §5).
public enum RTCPPacketType {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let sourceDescription: UInt8 = 202
    public static let bye: UInt8 = 203
    public static let app: UInt8 = 204
    /// Transport-layer feedback (RFC 4585 §6.2): generic NACK (FMT 1), transport-cc (FMT 15).
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback (RFC 4585 §6.3): PLI (FMT 1), FIR (FMT 4), REMB (FMT 15).
    public static let payloadFeedback: UInt8 = 206
    /// Extended reports (RFC 3611).
    public static let extendedReport: UInt8 = 207
}

/// Why bytes were not accepted as RTCP.
public enum RTCPParseError: Error, Sendable, Hashable {
    /// Fewer than 4 bytes left for a packet header, or fewer than the packet type needs.
    case tooShort
    /// The version field is not 2.
    case badVersion
    /// A packet's length field runs past the end of the compound packet.
    case lengthOverflow
    /// A padding count of zero or larger than the packet (RFC 3550 §6.4.1).
    case badPadding
    /// The count field promises more items than the packet holds.
    case countOverflow
}

/// One packet of a compound RTCP packet: its common header and where it lies (RFC 3550 §6.4.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| RC/FMT  |      PT       |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTCPPacketView: Sendable, Hashable {
    public var padding: Bool
    /// The 5-bit count (RC, SC) or feedback message type (FMT).
    public var count: UInt8
    public var packetType: UInt8
    /// The whole packet, header included, in the compound's bytes.
    public var range: Range<Int>
    /// The packet after its 4-byte header, without padding.
    public var bodyRange: Range<Int>

    /// The feedback message type, for PT 205/206 (RFC 4585 §6.1).
    public var format: UInt8 { count }
}

/// Walks the packets of a compound RTCP packet in place (RFC 3550 §6.1).
///
/// Stops at the end, or at the first packet whose header is bad, and then reports why in
/// ``error``. Only the shape of each packet is checked here; its body is checked by the
/// parser for its type.
public struct RTCPCompoundIterator: IteratorProtocol, Sequence {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// Why iteration stopped early, if it did.
    public private(set) var error: RTCPParseError?

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public mutating func next() -> RTCPPacketView? {
        guard error == nil, offset < bytes.count else { return nil }
        let start = offset
        guard bytes.count - start >= 4 else { return fail(.tooShort) }
        let first = bytes[start]
        guard first >> 6 == 2 else { return fail(.badVersion) }
        let length = (Int(bytes.readBE16(at: start + 2)) + 1) * 4
        guard length <= bytes.count - start else { return fail(.lengthOverflow) }
        let end = start + length
        var bodyEnd = end
        let padding = first & 0x20 != 0
        if padding {
            let count = Int(bytes[end - 1])
            guard count > 0, count <= length - 4 else { return fail(.badPadding) }
            bodyEnd = end - count
        }
        offset = end
        return RTCPPacketView(padding: padding, count: first & 0x1F, packetType: bytes[start + 1],
                              range: start..<end, bodyRange: (start + 4)..<bodyEnd)
    }

    private mutating func fail(_ reason: RTCPParseError) -> RTCPPacketView? {
        error = reason
        offset = bytes.count
        return nil
    }
}

/// Whole-compound checks.
public enum RTCPCompound {
    /// Checks that `bytes` is a sequence of well-formed RTCP packets that fills it exactly and
    /// whose bodies are long enough for their types; nil when it is.
    public static func validate(_ bytes: UnsafeRawBufferPointer) -> RTCPParseError? {
        guard !bytes.isEmpty else { return .tooShort }
        var iterator = RTCPCompoundIterator(bytes)
        while let view = iterator.next() {
            if let error = RTCPPacket.checkShape(view, in: bytes) { return error }
        }
        return iterator.error
    }

    /// Checks a compound held in an array.
    public static func validate(_ bytes: [UInt8]) -> RTCPParseError? {
        bytes.withUnsafeBytes { validate($0) }
    }
}

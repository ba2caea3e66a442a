/// One attribute as found in a message: its type and where its value lies (RFC 8489 §14).
public struct STUNRawAttribute: Sendable, Hashable {
    /// The attribute type.
    public var type: UInt16
    /// Offset of the attribute's 4-byte TLV header in the message.
    public var offset: Int
    /// The value bytes, excluding padding.
    public var valueRange: Range<Int>
}

/// Walks the attributes of a message without copying or allocating (RFC 8489 §14).
///
/// Each attribute is a TLV whose value is padded to a multiple of 4 bytes; padding bytes may
/// hold anything (RFC 5769's vectors use 0x20). The iterator stops at the end of the message
/// or at the first attribute that would run past it, and then reports `truncated`.
public struct STUNAttributeIterator: IteratorProtocol {
    private let bytes: UnsafeRawBufferPointer
    private var offset: Int
    private let end: Int
    /// Set when iteration stopped at an attribute that runs past the end of the message.
    public private(set) var truncated: STUNParseError?

    /// Iterates the attributes of `bytes`, which must hold a whole message (header included).
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.offset = STUNHeader.size
        self.end = bytes.count
    }

    public mutating func next() -> STUNRawAttribute? {
        guard truncated == nil, offset < end else { return nil }
        guard end - offset >= 4 else {
            truncated = .truncatedAttribute(type: 0)
            return nil
        }
        let type = bytes.readBE16(at: offset)
        let length = Int(bytes.readBE16(at: offset + 2))
        let valueStart = offset + 4
        let padded = (length + 3) & ~3
        guard padded <= end - valueStart else {
            truncated = .truncatedAttribute(type: type)
            return nil
        }
        let attribute = STUNRawAttribute(type: type, offset: offset, valueRange: valueStart..<(valueStart + length))
        offset = valueStart + padded
        return attribute
    }
}

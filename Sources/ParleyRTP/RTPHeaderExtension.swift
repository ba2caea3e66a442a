/// The two element layouts of RFC 8285 general RTP header extensions.
public enum RTPHeaderExtensionForm: Sendable, Hashable {
    /// Profile 0xBEDE: a byte of 4-bit id and 4-bit (length − 1), ids 1–14 (RFC 8285 §4.2).
    case oneByte
    /// Profile 0x100X: a byte of id and a byte of length, ids 1–255 (RFC 8285 §4.3).
    case twoByte

    /// The form that an extension profile value announces; nil for any other profile.
    public init?(profile: UInt16) {
        if profile == 0xBEDE {
            self = .oneByte
        } else if profile & 0xFFF0 == 0x1000 {
            self = .twoByte
        } else {
            return nil
        }
    }

    /// The profile value to write for this form (two-byte with appbits 0).
    public var profile: UInt16 {
        switch self {
        case .oneByte: return 0xBEDE
        case .twoByte: return 0x1000
        }
    }
}

/// One header extension element: the local id negotiated by `a=extmap` and its value's bytes.
public struct RTPHeaderExtensionElement: Sendable, Hashable {
    public var id: UInt8
    /// Where the element's header byte(s) start in the packet.
    public var offset: Int
    /// The element's value in the packet.
    public var valueRange: Range<Int>
}

/// Walks the elements of an RFC 8285 header extension in place (RFC 8285 §4).
///
/// Zero bytes between elements are padding and skipped. In the one-byte form id 15 ends the
/// walk (RFC 8285 §4.2). An element that would run past the extension ends it and sets
/// ``malformed``. Unknown profiles yield no elements.
public struct RTPHeaderExtensionIterator: IteratorProtocol, Sequence {
    private let bytes: UnsafeRawBufferPointer
    private let form: RTPHeaderExtensionForm?
    private var offset: Int
    private let end: Int
    /// Set when an element ran past the end of the extension.
    public private(set) var malformed = false

    /// Iterates the extension elements of a packet whose header was parsed as `header`.
    public init(_ bytes: UnsafeRawBufferPointer, header: RTPHeader) {
        self.bytes = bytes
        self.form = header.extensionForm
        // Guard against a header parsed from other bytes.
        self.end = Swift.min(header.extensionRange.upperBound, bytes.count)
        self.offset = header.extensionRange.lowerBound
    }

    public mutating func next() -> RTPHeaderExtensionElement? {
        guard let form else { return nil }
        while offset < end {
            let start = offset
            let first = bytes[start]
            switch form {
            case .oneByte:
                let id = first >> 4
                if id == 0 { offset += 1; continue }  // padding
                if id == 15 { offset = end; return nil }  // reserved: stop processing
                let length = Int(first & 0x0F) + 1
                guard length <= end - start - 1 else { malformed = true; offset = end; return nil }
                offset = start + 1 + length
                return RTPHeaderExtensionElement(id: id, offset: start, valueRange: (start + 1)..<offset)
            case .twoByte:
                if first == 0 { offset += 1; continue }  // padding
                guard end - start >= 2 else { malformed = true; offset = end; return nil }
                let length = Int(bytes[start + 1])
                guard length <= end - start - 2 else { malformed = true; offset = end; return nil }
                offset = start + 2 + length
                return RTPHeaderExtensionElement(id: first, offset: start, valueRange: (start + 2)..<offset)
            }
        }
        return nil
    }
}

extension RTPHeader {
    /// The value of the extension element with `id`, if present (RFC 8285).
    public func extensionValueRange(id: UInt8, in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        var iterator = RTPHeaderExtensionIterator(bytes, header: self)
        while let element = iterator.next() {
            if element.id == id { return element.valueRange }
        }
        return nil
    }

    /// Whether every extension element fits inside the extension (RFC 8285 §4).
    public func extensionIsWellFormed(in bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = RTPHeaderExtensionIterator(bytes, header: self)
        while iterator.next() != nil {}
        return !iterator.malformed
    }
}

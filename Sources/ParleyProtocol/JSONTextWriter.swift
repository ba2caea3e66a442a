/// JSON text written directly, byte for byte as `ProtocolCoding.encoder` (Foundation's
/// JSONEncoder, `.sortedKeys`, compact) writes the same values — for payloads on the hot path,
/// where the encoder's walk through `Codable` costs more than the message itself.
///
/// The caller writes an object's keys in sorted order (UTF-8 order, as `.sortedKeys` does) and
/// leaves out absent optionals (as synthesized `Codable` does with `encodeIfPresent`). Strings
/// are escaped by swift-foundation's `JSONWriter` rules: `"` `\` and `/` (no
/// `.withoutEscapingSlashes`) with a backslash; U+0008, U+000C, LF, CR and tab as `\b \f \n \r \t`;
/// other controls below U+0020 as `\u00xx` in lowercase hex; everything else (DEL, non-ASCII,
/// U+2028/2029) as its UTF-8 bytes.
public struct JSONTextWriter {
    public private(set) var bytes: [UInt8] = []
    /// Just after `{` or `[`: the next member or element needs no comma.
    private var atStart = true

    public init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func openObject() {
        bytes.append(UInt8(ascii: "{"))
        atStart = true
    }

    public mutating func closeObject() {
        bytes.append(UInt8(ascii: "}"))
        atStart = false
    }

    /// A member's key and its colon; `name` is plain ASCII (a Swift property name).
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer(_ value: Int) {
        var text = String(value)
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        integer(value)
    }

    /// Nothing at all for nil: the key is absent, not `null`.
    public mutating func member(_ name: StaticString, ifPresent value: String?) {
        if let value { member(name, value) }
    }

    public mutating func member(_ name: StaticString, ifPresent value: Int?) {
        if let value { member(name, value) }
    }

    public mutating func openArray() {
        bytes.append(UInt8(ascii: "["))
        atStart = true
    }

    public mutating func closeArray() {
        bytes.append(UInt8(ascii: "]"))
        atStart = false
    }

    /// An object as the next element of an array (after a comma unless it is the first).
    public mutating func openElement() {
        separate()
        openObject()
    }

    public mutating func member(_ name: StaticString, _ value: Int64) {
        member(name, Int(value))
    }

    private mutating func separate() {
        if !atStart { bytes.append(UInt8(ascii: ",")) }
        atStart = false
    }

    /// Copies runs that need no escape whole; most text is one run.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var mark = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") else { continue }
            if mark < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index])) }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex(byte >> 4), Self.hex(byte & 0x0F)])
            }
            mark = index + 1
        }
        if mark < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...])) }
    }

    private static func hex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

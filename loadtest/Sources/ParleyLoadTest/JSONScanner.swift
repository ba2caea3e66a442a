/// One pass over a JSON text (RFC 8259) that checks its grammar and picks out the few members
/// a caller asks for, without building the object: the realtime reader's per-frame parse.
///
/// Strings are found as ranges of the input and decoded only when asked (``string(_:)``), so a
/// member nobody reads costs its scan and nothing else. Works on the UTF-8 of a Swift `String`
/// (already valid UTF-8); what it rejects — bad grammar, a control character inside a string,
/// an unknown escape, nesting deeper than ``depthLimit`` — it rejects as a whole.
struct JSONScanner {
    struct Malformed: Error {}

    /// A string value's place in the input: the bytes between its quotes, as written.
    struct StringRange: Equatable, Sendable {
        var bytes: Range<Int>
        /// Whether it holds a `\` escape (so its bytes are not its value).
        var escaped: Bool
    }

    static let depthLimit = 256

    let input: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
    }

    // MARK: Walking an object

    /// Reads an object from here, calling `member` with each key (in the order written) while
    /// the scanner stands at that member's value. `member` either reads the value itself (and
    /// returns true) or leaves it to be skipped (returns false).
    mutating func object(depth: Int = 0, _ member: (inout JSONScanner, StringRange) throws -> Bool) throws {
        guard depth < Self.depthLimit else { throw Malformed() }
        skipWhitespace()
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            if try !member(&self, key) { try skipValue(depth: depth + 1) }
            skipWhitespace()
            guard let next = peek() else { throw Malformed() }
            index += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    /// The string value here, if it is one (and then it is read); nil, reading nothing, if the
    /// value is of another kind.
    mutating func stringIfAny() throws -> StringRange? {
        peek() == UInt8(ascii: "\"") ? try string() : nil
    }

    /// The boolean value here, if it is one (and then it is read).
    mutating func boolIfAny() throws -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: return nil
        }
    }

    /// Whether the value here is an object (read it with ``object(depth:_:)``).
    func atObject() -> Bool { peek() == UInt8(ascii: "{") }

    /// Checks that only whitespace follows.
    mutating func end() throws {
        skipWhitespace()
        guard index == input.count else { throw Malformed() }
    }

    // MARK: Reading what was found

    /// Whether the string at `range` is `name` (escapes decoded).
    func string(_ range: StringRange, is name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        if !range.escaped {
            return range.bytes.count == expected.count && expected.elementsEqual(input[range.bytes])
        }
        return Self.unescape(input[range.bytes]).elementsEqual(expected)
    }

    /// The value of the string at `range`.
    func string(_ range: StringRange) -> String {
        let bytes = input[range.bytes]
        return range.escaped ? String(decoding: Self.unescape(bytes), as: UTF8.self) : String(decoding: bytes, as: UTF8.self)
    }

    /// A checked string's bytes with their escapes decoded (RFC 8259 §7); a `\u` surrogate
    /// without its pair becomes U+FFFD.
    static func unescape(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        func hex4(at start: Int) -> UInt32? {
            guard start + 6 <= bytes.endIndex, bytes[start] == UInt8(ascii: "\\"), bytes[start + 1] == UInt8(ascii: "u") else {
                return nil
            }
            var value: UInt32 = 0
            for byte in bytes[(start + 2)..<(start + 6)] {
                guard let digit = hexDigit(byte) else { return nil }
                value = value << 4 | digit
            }
            return value
        }
        while i < bytes.endIndex {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "\\") else { out.append(byte); i += 1; continue }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar: UInt32 = 0
                for byte in bytes[i..<(i + 4)] { scalar = scalar << 4 | (hexDigit(byte) ?? 0) }
                i += 4
                if (0xD800...0xDBFF).contains(scalar), let low = hex4(at: i), (0xDC00...0xDFFF).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: UTF8.encode(unicode)!)
            default: out.append(escape)   // \" \\ \/
            }
        }
        return out
    }

    // MARK: Grammar

    private func peek() -> UInt8? { index < input.count ? input[index] : nil }

    private mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw Malformed() }
        index += 1
    }

    private mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard index + bytes.count <= input.count, input[index..<(index + bytes.count)].elementsEqual(bytes) else { throw Malformed() }
        index += bytes.count
    }

    /// Reads a string, checking its escapes and that it holds no control character.
    private mutating func string() throws -> StringRange {
        try expect(UInt8(ascii: "\""))
        let start = index
        var escaped = false
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return StringRange(bytes: start..<index, escaped: escaped)
            }
            guard byte >= 0x20 else { throw Malformed() }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard index + 1 < input.count else { throw Malformed() }
                switch input[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= input.count, input[(index + 2)..<(index + 6)].allSatisfy({ Self.hexDigit($0) != nil }) else {
                        throw Malformed()
                    }
                    index += 6
                default: throw Malformed()
                }
            } else {
                index += 1
            }
        }
        throw Malformed()
    }

    private mutating func number() throws {
        func digits() throws {
            let start = index
            while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            guard index > start else { throw Malformed() }
        }
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") { index += 1 } else { try digits() }
        if peek() == UInt8(ascii: ".") { index += 1; try digits() }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            try digits()
        }
    }

    /// Reads any value, checking it.
    mutating func skipValue(depth: Int) throws {
        guard depth < Self.depthLimit else { throw Malformed() }
        skipWhitespace()
        guard let byte = peek() else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth) { _, _ in false }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { index += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                skipWhitespace()
                guard let next = peek() else { throw Malformed() }
                index += 1
                if next == UInt8(ascii: "]") { return }
                guard next == UInt8(ascii: ",") else { throw Malformed() }
            }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw Malformed()
        }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// A strict reader of the few JSON (RFC 8259) forms a fast path takes: strings, `null` and
/// small integers, over bytes it does not own. Every method answers nil (or false) at anything
/// else — an escape it does not know, a lone surrogate, a control character, invalid UTF-8, a
/// fraction — so that its caller can give the whole input to JSONDecoder instead, and every
/// error stays JSONDecoder's.
struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Only whitespace is left.
    mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// The next byte after whitespace, not taken.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Takes `byte` (`{`, `:`, …) if it comes next after whitespace.
    mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    mutating func takeNull() -> Bool {
        guard peek() == UInt8(ascii: "n"), index + 4 <= bytes.count,
              bytes[index + 1] == UInt8(ascii: "u"), bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// A string (§7), its escapes decoded; nil for anything not valid or not understood.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            case UInt8(ascii: "\\"):
                return escapedString(from: start)
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// The rest of a string that has escapes, from its first backslash at `index`.
    private mutating func escapedString(from start: Int) -> String? {
        var content = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // Raw runs are checked here, whole: an escape writes a complete scalar, so a
                // sequence cut by one stays invalid.
                return String(validating: content, as: UTF8.self)
            case 0x00..<0x20:
                return nil
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): content.append(escape)
                case UInt8(ascii: "b"): content.append(0x08)
                case UInt8(ascii: "f"): content.append(0x0C)
                case UInt8(ascii: "n"): content.append(0x0A)
                case UInt8(ascii: "r"): content.append(0x0D)
                case UInt8(ascii: "t"): content.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = escapedScalar() else { return nil }
                    content.append(contentsOf: String(scalar).utf8)
                default:
                    return nil
                }
            default:
                content.append(byte)
            }
        }
        return nil
    }

    /// `\uXXXX` after its `u`, or a UTF-16 surrogate pair `\uD83D\uDE00` (§7); nil for a lone
    /// surrogate.
    private mutating func escapedScalar() -> Unicode.Scalar? {
        guard let unit = hex4() else { return nil }
        switch unit {
        case 0xD800...0xDBFF:
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00...0xDFFF:
            return nil
        case 0:
            // The NUL, which no text here may hold (`NulEscape`): the frame is left to JSONDecoder's
            // path, which refuses it with its id.
            return nil
        default:
            return Unicode.Scalar(unit)
        }
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// An integer (§6) of at most 18 digits, so it always fits `Int64`; nil for anything with a
    /// fraction or an exponent, a leading zero, `-0`, or more digits.
    mutating func integer() -> Int64? {
        skipWhitespace()
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        var cursor = negative ? index + 1 : index
        let first = cursor
        var value: Int64 = 0
        while cursor < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[cursor]), cursor - first < 18 {
            value = value * 10 + Int64(bytes[cursor] - UInt8(ascii: "0"))
            cursor += 1
        }
        let digits = cursor - first
        guard digits > 0, bytes[first] != UInt8(ascii: "0") || (digits == 1 && !negative) else { return nil }
        if cursor < bytes.count {
            switch bytes[cursor] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        index = cursor
        return negative ? -value : value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}

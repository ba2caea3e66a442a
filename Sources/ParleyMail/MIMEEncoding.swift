import Foundation

/// Pure helpers for the MIME and header encodings the renderer needs (RFC 2045, RFC 2047,
/// RFC 5322). No I/O, no state.
enum MIMEEncoding {
    /// RFC 5322 §2.1.1: lines SHOULD be at most 78 characters, MUST be at most 998.
    static let recommendedLineLength = 78
    static let maximumLineLength = 998

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    // MARK: Line endings

    /// Converts every line ending (CRLF, lone CR, lone LF) to CRLF.
    static func normalizedLineEndings(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + text.utf8.count / 32)
        var previousWasCR = false
        for byte in text.utf8 {
            if byte == lf {
                if !previousWasCR { out.append(cr) }
                out.append(lf)
                previousWasCR = false
            } else {
                if previousWasCR { out.append(lf) }
                if byte == cr {
                    out.append(cr)
                    previousWasCR = true
                } else {
                    out.append(byte)
                    previousWasCR = false
                }
            }
        }
        if previousWasCR { out.append(lf) }
        return out
    }

    // MARK: Body encodings (RFC 2045 §2.7, §6.8)

    /// Whether CRLF-normalised `bytes` may be sent as `7bit`: ASCII without NUL, CR and LF only as
    /// CRLF pairs, and no line longer than 998 octets.
    static func isSevenBit(_ bytes: [UInt8]) -> Bool {
        var lineLength = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == cr {
                guard index + 1 < bytes.count, bytes[index + 1] == lf else { return false }
                lineLength = 0
                index += 2
                continue
            }
            if byte == 0 || byte == lf || byte >= 0x80 { return false }
            lineLength += 1
            if lineLength > maximumLineLength { return false }
            index += 1
        }
        return true
    }

    /// Base64 of `bytes` in lines of at most 76 characters joined by CRLF (RFC 2045 §6.8).
    static func base64Lines(_ bytes: [UInt8]) -> String {
        let encoded = Data(bytes).base64EncodedString()
        var lines: [Substring] = []
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(encoded[start..<end])
            start = end
        }
        return lines.joined(separator: "\r\n")
    }

    // MARK: Header encodings (RFC 2047, RFC 5322 §3.2)

    /// Replaces characters that must never appear raw in a header value (CR, LF, other controls)
    /// with spaces, so a value can never start a new header.
    static func sanitizedHeaderText(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar
        }))
    }

    /// Whether `text` is printable ASCII that cannot be mistaken for an encoded-word.
    static func isPlainASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !text.contains("=?")
    }

    /// Splits `text` into RFC 2047 `B`-encoded words of at most 75 characters each (§2), never
    /// splitting a character across words (§5 (3)).
    static func encodedWords(_ text: String) -> [String] {
        // "=?utf-8?B?" + "?=" is 12 characters, leaving 63 for base64: at most 45 raw octets
        // (base64 of 45 octets is 60 characters; 48 would be 64).
        let maximumChunkBytes = 45
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if !chunk.isEmpty, chunk.count + bytes.count > maximumChunkBytes {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk.append(contentsOf: bytes)
        }
        if !chunk.isEmpty || words.isEmpty { words.append(encodedWord(chunk)) }
        return words
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?utf-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// An unstructured header value such as Subject: as-is when it is plain ASCII, else
    /// encoded-words separated by spaces (which ``foldedHeader(name:value:)`` may fold at).
    static func unstructuredValue(_ text: String) -> String {
        let clean = sanitizedHeaderText(text)
        return isPlainASCII(clean) ? clean : encodedWords(clean).joined(separator: " ")
    }

    /// A display name as a `phrase` (RFC 5322 §3.2.5): a quoted-string when ASCII, else
    /// encoded-words (RFC 2047 §5 (3)).
    static func displayName(_ name: String) -> String {
        let clean = sanitizedHeaderText(name)
        guard isPlainASCII(clean) else { return encodedWords(clean).joined(separator: " ") }
        var quoted = "\""
        for character in clean {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        quoted.append("\"")
        return quoted
    }

    /// A mailbox (`name-addr` or `addr-spec`, RFC 5322 §3.4).
    static func mailbox(address: String, name: String?) -> String {
        guard let name, !name.trimmingCharacters(in: .whitespaces).isEmpty else { return address }
        return displayName(name) + " <" + address + ">"
    }

    /// `Name: value`, folded at spaces (CRLF + the existing space, RFC 5322 §2.2.3) so lines stay
    /// within 78 characters where the value allows. No trailing CRLF.
    static func foldedHeader(name: String, value: String) -> String {
        let tokens = value.split(separator: " ", omittingEmptySubsequences: false)
        var lines: [String] = []
        var current = name + ":"
        var currentHasToken = false
        for token in tokens {
            if currentHasToken, !token.isEmpty,
                current.utf8.count + 1 + token.utf8.count > recommendedLineLength
            {
                lines.append(current)
                current = ""
            }
            current += " " + token
            if !token.isEmpty { currentHasToken = true }
        }
        lines.append(current)
        return lines.joined(separator: "\r\n")
    }
}

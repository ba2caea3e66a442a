import Foundation

/// A minimal RFC 5322 / MIME reader for assertions: unfolded headers, RFC 2047 `B` words decoded,
/// and the parts of a multipart body with their transfer encoding undone. Accepts CRLF or LF
/// (Python's `mailbox` writes LF).
struct ParsedMail {
    var headers: [(name: String, value: String)]
    var body: String
    var parts: [ParsedMail]

    init(_ raw: String) throws {
        let text = raw.replacingOccurrences(of: "\r\n", with: "\n")
        let (headerBlock, body) = Self.splitHeaders(text)
        var headers: [(String, String)] = []
        for line in headerBlock.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.first == " " || line.first == "\t", let last = headers.popLast() {
                headers.append((last.0, last.1 + String(line)))
            } else if let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers.append((name, value))
            } else {
                throw ParseError.badHeaderLine(String(line))
            }
        }
        self.headers = headers
        self.parts = []
        self.body = body

        let contentType = self.header("Content-Type") ?? "text/plain"
        if contentType.lowercased().hasPrefix("multipart/") {
            guard let boundary = Self.parameter("boundary", in: contentType) else { throw ParseError.noBoundary }
            self.parts = try Self.splitMultipart(body, boundary: boundary).map { try ParsedMail($0) }
        } else if self.header("Content-Transfer-Encoding")?.lowercased() == "base64" {
            let compact = body.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else { throw ParseError.badBase64 }
            self.body = String(decoding: data, as: UTF8.self)
        }
    }

    enum ParseError: Error {
        case badHeaderLine(String)
        case noBoundary
        case badBase64
        case missingClosingDelimiter
    }

    /// The first header named `name` (case-insensitive), unfolded, encoded-words left as sent.
    func rawHeader(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The first header named `name`, with RFC 2047 `B` encoded-words decoded.
    func header(_ name: String) -> String? {
        rawHeader(name).map(Self.decodeEncodedWords)
    }

    /// The decoded body of the first part with the given media type.
    func part(_ mediaType: String) -> ParsedMail? {
        parts.first { ($0.header("Content-Type") ?? "").lowercased().hasPrefix(mediaType) }
    }

    private static func splitHeaders(_ text: String) -> (String, String) {
        guard let range = text.range(of: "\n\n") else { return (text, "") }
        return (String(text[..<range.lowerBound]), String(text[range.upperBound...]))
    }

    private static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix(name + "=") else { continue }
            var result = String(pair.dropFirst(name.count + 1))
            if result.hasPrefix("\""), result.hasSuffix("\""), result.count >= 2 { result = String(result.dropFirst().dropLast()) }
            return result
        }
        return nil
    }

    private static func splitMultipart(_ body: String, boundary: String) throws -> [String] {
        var parts: [String] = []
        var current: [Substring]?
        var closed = false
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "--" + boundary + "--" {
                if let current { parts.append(current.joined(separator: "\n")) }
                closed = true
                break
            } else if line == "--" + boundary {
                if let current { parts.append(current.joined(separator: "\n")) }
                current = []
            } else {
                current?.append(line)
            }
        }
        guard closed else { throw ParseError.missingClosingDelimiter }
        // The line break before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
        return parts
    }

    /// Decodes `=?charset?B?…?=` words; whitespace between adjacent encoded-words is dropped
    /// (RFC 2047 §6.2).
    static func decodeEncodedWords(_ value: String) -> String {
        var out = ""
        var previousWasEncoded = false
        for (index, token) in value.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if let decoded = decodeWord(String(token)) {
                if index > 0, !previousWasEncoded { out += " " }
                out += decoded
                previousWasEncoded = true
            } else {
                if index > 0 { out += " " }
                out += token
                previousWasEncoded = false
            }
        }
        return out
    }

    private static func decodeWord(_ token: String) -> String? {
        guard token.hasPrefix("=?"), token.hasSuffix("?=") else { return nil }
        let inner = token.dropFirst(2).dropLast(2).split(separator: "?", omittingEmptySubsequences: false)
        guard inner.count == 3, inner[1].uppercased() == "B", let data = Data(base64Encoded: String(inner[2])) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

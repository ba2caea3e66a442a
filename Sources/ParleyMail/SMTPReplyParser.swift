/// Assembles SMTP replies from bytes (RFC 5321 §4.2): lines `ddd-text` continue a reply, the line
/// `ddd text` (or bare `ddd`) ends it. Pure value: no I/O.
///
/// Lines may end in CRLF or, leniently, a bare LF. Limits on line length and line count keep a
/// hostile server from growing memory without bound.
struct SMTPReplyParser {
    /// RFC 5321 §4.5.3.1.5 allows 512 octets per reply line; be generous.
    static let maximumLineLength = 4096
    static let maximumLinesPerReply = 512

    private var buffer: [UInt8] = []
    private var pendingCode: Int?
    private var pendingLines: [String] = []

    /// Whether bytes or lines have been received that are not yet part of a complete reply.
    var hasUnconsumedInput: Bool { !buffer.isEmpty || pendingCode != nil }

    /// Feeds received bytes; returns the replies they complete, in order.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(SMTPError) -> [SMTPReply] where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var replies: [SMTPReply] = []
        var lineStart = 0
        while let newline = buffer[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            var lineEnd = newline
            if lineEnd > lineStart, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            let line = buffer[lineStart..<lineEnd]
            lineStart = newline + 1
            if let reply = try consume(line: line) { replies.append(reply) }
        }
        buffer.removeFirst(lineStart)
        if buffer.count > Self.maximumLineLength {
            throw .malformedReply("reply line longer than \(Self.maximumLineLength) octets")
        }
        return replies
    }

    private mutating func consume(line: ArraySlice<UInt8>) throws(SMTPError) -> SMTPReply? {
        guard line.count <= Self.maximumLineLength else {
            throw .malformedReply("reply line longer than \(Self.maximumLineLength) octets")
        }
        let bytes = Array(line)
        guard bytes.count >= 3,
            (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(bytes[0]),
            bytes[1...2].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw .malformedReply(Self.preview(bytes))
        }
        let code = Int(bytes[0] - 48) * 100 + Int(bytes[1] - 48) * 10 + Int(bytes[2] - 48)
        let separator = bytes.count > 3 ? bytes[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw .malformedReply(Self.preview(bytes))
        }
        if let pendingCode, pendingCode != code {
            throw .malformedReply("reply code changed from \(pendingCode) to \(code) within one reply")
        }
        let text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""
        pendingCode = code
        pendingLines.append(text)
        guard pendingLines.count <= Self.maximumLinesPerReply else {
            throw .malformedReply("reply longer than \(Self.maximumLinesPerReply) lines")
        }
        guard separator == UInt8(ascii: " ") else { return nil }

        let reply = SMTPReply(code: code, lines: pendingLines)
        self.pendingCode = nil
        pendingLines = []
        return reply
    }

    private static func preview(_ bytes: [UInt8]) -> String {
        String(String(decoding: bytes.prefix(80), as: UTF8.self).debugDescription)
    }
}

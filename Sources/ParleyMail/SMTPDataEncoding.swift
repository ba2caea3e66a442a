/// Prepares message content for the SMTP `DATA` phase (RFC 5321 §4.1.1.4, §4.5.2). Pure function.
public enum SMTPDataEncoding {
    /// Normalises line endings to CRLF, doubles a leading `.` on every line (dot-stuffing) and
    /// appends the `CRLF.CRLF` terminator, adding a final CRLF first if the content lacks one.
    public static func encode(_ content: String) -> [UInt8] {
        let normalized = MIMEEncoding.normalizedLineEndings(content)
        var out: [UInt8] = []
        out.reserveCapacity(normalized.count + 16)
        var atLineStart = true
        for byte in normalized {
            if atLineStart, byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            out.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
        }
        if !out.isEmpty, !atLineStart { out.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")]) }
        out.append(contentsOf: Array(".\r\n".utf8))
        return out
    }
}

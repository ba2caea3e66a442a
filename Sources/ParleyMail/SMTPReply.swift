/// One complete SMTP reply (RFC 5321 §4.2): a three-digit code and one or more text lines.
struct SMTPReply: Sendable, Hashable {
    var code: Int
    /// The text of each line, without the code and separator.
    var lines: [String]

    /// The lines joined with newlines, for errors and logs.
    var text: String { lines.joined(separator: "\n") }

    /// 2yz: the command was accepted.
    var isPositiveCompletion: Bool { (200..<300).contains(code) }
    /// 3yz: the server awaits more (354 after DATA, 334 during AUTH).
    var isPositiveIntermediate: Bool { (300..<400).contains(code) }
    /// 5yz: permanent failure.
    var isPermanentFailure: Bool { (500..<600).contains(code) }
}

import Foundation

/// Renders a ``MailMessage`` as an RFC 5322 message: `multipart/alternative` (RFC 2046 §5.1.4)
/// with a text/plain part followed by a text/html part, both UTF-8.
///
/// Headers are folded and non-ASCII text is RFC 2047-encoded; bodies are `7bit` when they are
/// ASCII with lines of at most 998 octets and base64 otherwise, so the output is always pure
/// ASCII with CRLF line endings. Dot-stuffing is the SMTP transport's business, not this one's.
public struct MailRenderer: Sendable {
    /// The `From:` mailbox.
    public var from: MailAddress
    /// The right-hand side of generated Message-IDs.
    public var messageIDDomain: String

    /// Creates a renderer sending as `from`; Message-IDs use `messageIDDomain`, defaulting to the
    /// domain of `from`.
    public init(from: MailAddress, messageIDDomain: String? = nil) {
        self.from = from
        self.messageIDDomain = messageIDDomain ?? from.domain ?? "parley.invalid"
    }

    /// Renders `message`. `date` and `messageID` (without angle brackets) are parameters so tests
    /// can pin them.
    ///
    /// - Throws: ``MailError/invalidAddress(_:)`` when the sender or recipient address is unsafe.
    public func render(_ message: MailMessage, date: Date = Date(), messageID: String? = nil) throws(MailError) -> RenderedMail {
        guard MailAddress.isValid(from.address) else { throw .invalidAddress(from.address) }
        guard MailAddress.isValid(message.to) else { throw .invalidAddress(message.to) }

        let id = "<" + (messageID ?? Self.uniqueToken() + "@" + messageIDDomain) + ">"
        let textPart = Part(mediaType: "text/plain", body: message.text)
        let htmlPart = Part(mediaType: "text/html", body: message.html)
        var boundary = "=_parley_" + Self.uniqueToken()
        // A 7bit body could in principle contain the boundary; base64 never can (no "_").
        while textPart.contains(boundary) || htmlPart.contains(boundary) {
            boundary = "=_parley_" + Self.uniqueToken()
        }

        var lines: [String] = [
            MIMEEncoding.foldedHeader(name: "From", value: MIMEEncoding.mailbox(address: from.address, name: from.name)),
            MIMEEncoding.foldedHeader(name: "To", value: MIMEEncoding.mailbox(address: message.to, name: message.toName)),
            MIMEEncoding.foldedHeader(name: "Subject", value: MIMEEncoding.unstructuredValue(message.subject)),
            "Date: " + RFC5322Date.string(from: date),
            "Message-ID: " + id,
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"",
            "",
            "This is a multi-part message in MIME format.",
        ]
        for part in [textPart, htmlPart] {
            lines.append("--" + boundary)
            lines.append("Content-Type: \(part.mediaType); charset=utf-8")
            lines.append("Content-Transfer-Encoding: " + part.transferEncoding)
            lines.append("")
            lines.append(part.encodedBody)
        }
        lines.append("--" + boundary + "--")
        return RenderedMail(messageID: id, text: lines.joined(separator: "\r\n") + "\r\n")
    }

    private static func uniqueToken() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// One body part, encoded.
    private struct Part {
        var mediaType: String
        var transferEncoding: String
        /// The encoded body; the CRLF that follows it belongs to the next delimiter (RFC 2046 §5.1.1).
        var encodedBody: String

        init(mediaType: String, body: String) {
            self.mediaType = mediaType
            let bytes = MIMEEncoding.normalizedLineEndings(body)
            if MIMEEncoding.isSevenBit(bytes) {
                transferEncoding = "7bit"
                encodedBody = String(decoding: bytes, as: UTF8.self)
            } else {
                transferEncoding = "base64"
                encodedBody = MIMEEncoding.base64Lines(bytes)
            }
        }

        func contains(_ boundary: String) -> Bool {
            transferEncoding == "7bit" && encodedBody.contains(boundary)
        }
    }
}

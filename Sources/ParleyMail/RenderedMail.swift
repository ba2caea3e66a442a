/// A message rendered to RFC 5322 form, ready for an outbox file or SMTP `DATA`.
public struct RenderedMail: Sendable, Hashable {
    /// The `Message-ID` header value, angle brackets included, e.g. `<…@example.com>`.
    public var messageID: String
    /// The whole message, headers and body, with CRLF line endings. Pure ASCII.
    public var text: String

    /// Creates a rendered message.
    public init(messageID: String, text: String) {
        self.messageID = messageID
        self.text = text
    }
}

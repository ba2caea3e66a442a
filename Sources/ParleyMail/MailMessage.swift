/// A transactional mail (verification, password reset, …) to one recipient, in both a plain-text
/// and an HTML version. The sender comes from the transport's configuration.
public struct MailMessage: Sendable, Hashable {
    /// The recipient's address, e.g. `alice@example.com`.
    public var to: String
    /// The recipient's display name, if known.
    public var toName: String?
    /// The subject line; any Unicode (encoded per RFC 2047 when it is not ASCII).
    public var subject: String
    /// The plain-text body.
    public var text: String
    /// The HTML body.
    public var html: String

    /// Creates a message.
    public init(to: String, toName: String? = nil, subject: String, text: String, html: String) {
        self.to = to
        self.toName = toName
        self.subject = subject
        self.text = text
        self.html = html
    }
}

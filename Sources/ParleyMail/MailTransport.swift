/// Delivers mail. Parley's services depend on this protocol only; the app picks
/// ``SMTPMailTransport`` when SMTP is configured and ``OutboxMailTransport`` otherwise.
public protocol MailTransport: Sendable {
    /// Delivers `message`, returning once it has been handed off (written to the outbox, or
    /// accepted by the SMTP server). Throws when it could not be.
    func send(_ message: MailMessage) async throws
}

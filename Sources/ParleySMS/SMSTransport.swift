/// A text message to one phone number.
public struct SMSMessage: Sendable, Equatable {
    /// E.164 (`+14155552671`).
    public var to: String
    public var text: String

    public init(to: String, text: String) {
        self.to = to
        self.text = text
    }
}

/// Delivers text messages. Services depend on this protocol only; the app picks
/// ``HTTPSMSTransport`` when an SMS provider is configured and ``OutboxSMSTransport`` otherwise.
public protocol SMSTransport: Sendable {
    /// Returns once the message is handed off (written to the outbox, or accepted by the
    /// provider); throws when it could not be.
    func send(_ message: SMSMessage) async throws
}

/// Why a provider did not take a message.
public enum SMSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider answered with an error status (and its own error code and message, if any).
    case refused(status: Int, code: Int?, message: String)
    /// The provider could not be reached or answered something unreadable.
    case unreachable(String)

    public var description: String {
        switch self {
        case .refused(let status, let code, let message): "SMS provider refused the message: HTTP \(status) \(code.map(String.init) ?? "-") \(message)"
        case .unreachable(let reason): "SMS provider unreachable: \(reason)"
        }
    }
}

/// Errors raised while turning a ``MailMessage`` into bytes, before any transport is involved.
public enum MailError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An address (sender or recipient) failed ``MailAddress/isValid(_:)``.
    case invalidAddress(String)

    public var description: String {
        switch self {
        case .invalidAddress(let address):
            return "invalid mail address: \(String(reflecting: address))"
        }
    }
}

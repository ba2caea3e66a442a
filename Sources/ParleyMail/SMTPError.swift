/// Why an SMTP delivery failed. Server refusals carry the reply code and text verbatim so they
/// can be logged and classified (4xx transient, 5xx permanent; RFC 5321 §4.2.1).
public enum SMTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Could not open the TCP connection (DNS failure, refused, unreachable, …).
    case connectionFailed(host: String, port: Int, reason: String)
    /// Nothing arrived in time: `stage` is `"connect"` or the command whose reply was awaited.
    case timeout(stage: String)
    /// The connection broke or was closed while waiting for the reply to `stage`.
    case connectionLost(stage: String, reason: String)
    /// The server answered `command` with an unexpected reply (`code` and its text, lines joined
    /// with newlines). `command` is the verb only: credentials and addresses are never included.
    case rejected(command: String, code: Int, message: String)
    /// The server sent something that is not an SMTP reply (RFC 5321 §4.2).
    case malformedReply(String)
    /// TLS is required (``SMTPConfiguration/TLSMode-swift.enum/requireStartTLS``, or credentials are configured)
    /// but the server does not advertise STARTTLS.
    case startTLSUnavailable
    /// Credentials are configured but the server offers neither AUTH PLAIN nor AUTH LOGIN.
    case authenticationUnavailable(offered: [String])
    /// The TLS handshake or certificate verification failed.
    case tls(String)
    /// The configuration cannot work (unreadable CA file, invalid address, …).
    case invalidConfiguration(String)
    /// Unconsumed plaintext followed the STARTTLS reply: a possible injection attack
    /// (RFC 3207 §6, CVE-2011-0411), so the connection was abandoned.
    case dataAfterStartTLS

    /// The server's reply code, when the error is a server refusal.
    public var replyCode: Int? {
        if case .rejected(_, let code, _) = self { return code }
        return nil
    }

    /// Whether retrying later may help: timeouts, broken connections and 4xx replies.
    public var isTransient: Bool {
        switch self {
        case .timeout, .connectionFailed, .connectionLost: return true
        case .rejected(_, let code, _): return (400..<500).contains(code)
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .connectionFailed(let host, let port, let reason):
            return "SMTP: cannot connect to \(host):\(port): \(reason)"
        case .timeout(let stage):
            return "SMTP: timed out waiting for \(stage)"
        case .connectionLost(let stage, let reason):
            return "SMTP: connection lost during \(stage): \(reason)"
        case .rejected(let command, let code, let message):
            return "SMTP: server rejected \(command): \(code) \(message)"
        case .malformedReply(let detail):
            return "SMTP: malformed reply: \(detail)"
        case .startTLSUnavailable:
            return "SMTP: TLS is required but the server does not offer STARTTLS"
        case .authenticationUnavailable(let offered):
            return "SMTP: credentials are configured but the server offers no supported AUTH mechanism (offered: \(offered.isEmpty ? "none" : offered.joined(separator: " ")))"
        case .tls(let detail):
            return "SMTP: TLS failed: \(detail)"
        case .invalidConfiguration(let detail):
            return "SMTP: invalid configuration: \(detail)"
        case .dataAfterStartTLS:
            return "SMTP: server sent data after the STARTTLS reply; connection abandoned"
        }
    }
}

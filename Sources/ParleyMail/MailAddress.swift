/// A mailbox: an address with an optional display name, such as `"Parley" <no-reply@example.com>`.
///
/// Only plain ASCII addresses are accepted (no SMTPUTF8); display names may be any Unicode and are
/// encoded per RFC 2047 when rendered.
public struct MailAddress: Sendable, Hashable {
    /// The address itself, e.g. `no-reply@example.com`.
    public var address: String
    /// The display name shown by mail clients, e.g. `Parley`.
    public var name: String?

    /// Creates a mailbox from an address and an optional display name.
    public init(address: String, name: String? = nil) {
        self.address = address
        self.name = name
    }

    /// The part after the last `@`, or `nil` when there is none.
    public var domain: String? {
        guard let at = address.lastIndex(of: "@") else { return nil }
        let domain = address[address.index(after: at)...]
        return domain.isEmpty ? nil : String(domain)
    }

    /// Whether `address` is safe to put in an SMTP envelope and a header.
    ///
    /// This is a deliberately conservative check (RFC 5321 §4.1.2 / §4.5.3.1): printable ASCII
    /// with no spaces, angle brackets or control characters, exactly one `@` with a non-empty local
    /// part and domain, and at most 254 octets. It blocks header and command injection; it does not
    /// try to accept every exotic address the RFC allows.
    public static func isValid(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard !bytes.isEmpty, bytes.count <= 254 else { return false }
        var atCount = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "@"): atCount += 1
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: " "),
                UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","),
                UInt8(ascii: ";"), UInt8(ascii: "\\"):
                return false
            case 0x21...0x7E: continue
            default: return false
            }
        }
        guard atCount == 1, let at = bytes.firstIndex(of: UInt8(ascii: "@")) else { return false }
        return at > 0 && at < bytes.count - 1
    }
}

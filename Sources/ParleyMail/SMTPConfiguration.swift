/// How ``SMTPMailTransport`` reaches its server.
public struct SMTPConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// When and how the connection is encrypted.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plaintext throughout. Credentials, if configured, are sent in the clear.
        case none
        /// Upgrade with STARTTLS (RFC 3207) when the server offers it. If it does not, mail goes
        /// in plaintext, unless credentials are configured: those are never sent unencrypted in
        /// this mode, and the send fails with ``SMTPError/startTLSUnavailable`` instead.
        case startTLSIfAvailable
        /// Upgrade with STARTTLS, failing with ``SMTPError/startTLSUnavailable`` when the server
        /// does not offer it.
        case requireStartTLS
        /// TLS from the first byte ("SMTPS", RFC 8314 §3.3), usually on port 465.
        case implicit
    }

    /// Server host name or IP address.
    public var host: String
    /// Server port.
    public var port: Int
    /// TLS behaviour.
    public var tls: TLSMode
    /// AUTH user name; authentication happens only when both this and ``password`` are set.
    public var username: String?
    /// AUTH password.
    public var password: String?
    /// A PEM file whose certificate(s) become the only trust roots, for a private CA or a
    /// self-signed server certificate. `nil` uses the system's trust store.
    public var caCertificatePath: String?
    /// Whether to verify the server's certificate chain and host name. Turning this off makes
    /// TLS vulnerable to interception; it exists for development only.
    public var verifyCertificate: Bool
    /// The name this client gives in EHLO/HELO (RFC 5321 §4.1.1.1: ideally its FQDN).
    public var helloName: String
    /// How long to wait for the TCP connection to open.
    public var connectTimeout: Duration
    /// How long to wait for each server reply (the greeting included).
    public var commandTimeout: Duration

    /// Creates a configuration. `port` defaults to ``defaultPort(for:)``.
    public init(
        host: String,
        port: Int? = nil,
        tls: TLSMode = .startTLSIfAvailable,
        username: String? = nil,
        password: String? = nil,
        caCertificatePath: String? = nil,
        verifyCertificate: Bool = true,
        helloName: String = "localhost",
        connectTimeout: Duration = .seconds(10),
        commandTimeout: Duration = .seconds(30)
    ) {
        self.host = host
        self.port = port ?? Self.defaultPort(for: tls)
        self.tls = tls
        self.username = username
        self.password = password
        self.caCertificatePath = caCertificatePath
        self.verifyCertificate = verifyCertificate
        self.helloName = helloName
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    /// 465 for implicit TLS, else 587 (message submission, RFC 6409).
    public static func defaultPort(for tls: TLSMode) -> Int {
        tls == .implicit ? 465 : 587
    }

    /// Whether AUTH will be attempted.
    var hasCredentials: Bool { username != nil && password != nil }

    /// A description with the password redacted.
    public var description: String {
        "SMTPConfiguration(host: \(host), port: \(port), tls: \(tls.rawValue), username: \(username ?? "nil"), "
            + "password: \(password == nil ? "nil" : "<redacted>"), caCertificatePath: \(caCertificatePath ?? "nil"), "
            + "verifyCertificate: \(verifyCertificate), helloName: \(helloName))"
    }
}

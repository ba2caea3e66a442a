import Foundation

/// How Parley reaches APNs: the provider key (token-based authentication) and the retry bounds.
public struct APNsConfiguration: Sendable {
    /// Path of the `.p8` file from the Apple developer account: a PKCS#8 PEM EC P-256 key.
    public var keyFile: String
    /// The key's id (10 characters), the JWT's `kid`.
    public var keyID: String
    /// The developer team id, the JWT's `iss`.
    public var teamID: String
    /// The app's bundle id: the `apns-topic` of alerts, and with `.voip` of VoIP pushes.
    public var bundleID: String
    /// The environment of the app's own build, for whoever reads the configuration; each push goes to
    /// the host of its target's environment (a development build's tokens work only with the sandbox).
    public var environment: APNsEnvironment
    /// Overrides the host for every target, e.g. `https://127.0.0.1:8443` for a local stand-in.
    public var url: String?
    /// A PEM file of extra CA certificates to trust besides the system's (tests).
    public var caFile: String?
    /// How long one push may keep being retried after 429, 5xx or a connection error, in seconds.
    public var maxRetryWindow: TimeInterval
    /// The first wait before a retry, in seconds; it doubles each time, with jitter, unless APNs
    /// says `Retry-After`.
    public var initialBackoff: TimeInterval
    /// The longest one request may take, in seconds (bounded further by the retry window and the
    /// message's deadline).
    public var requestTimeout: TimeInterval

    public init(keyFile: String, keyID: String, teamID: String, bundleID: String,
                environment: APNsEnvironment = .production, url: String? = nil, caFile: String? = nil,
                maxRetryWindow: TimeInterval = 30, initialBackoff: TimeInterval = 0.5, requestTimeout: TimeInterval = 10) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
        self.url = url
        self.caFile = caFile
        self.maxRetryWindow = maxRetryWindow
        self.initialBackoff = initialBackoff
        self.requestTimeout = requestTimeout
    }

    /// Where a push for a token of `environment` goes: `url` when set, else Apple's host for it.
    public func baseURL(for environment: APNsEnvironment) -> String {
        if let url { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        switch environment {
        case .sandbox: return "https://api.sandbox.push.apple.com"
        case .production: return "https://api.push.apple.com"
        }
    }
}

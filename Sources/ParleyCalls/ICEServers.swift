import Foundation
import ParleyCore
import ParleyProtocol

/// What a device passes to `RTCPeerConnection(configuration:)`: the TURN servers it may relay
/// through, with credentials of its user's own, and how long those last.
/// The body of `GET /v1/calls/ice-servers`, and the `iceServers` of the realtime `hello`.
public struct ICEServers: Codable, Sendable, Equatable {
    public typealias Server = ICEServer

    public var iceServers: [Server]
    /// Seconds from now until the credentials expire (TURN refuses them after that).
    public var ttlSeconds: Int
}

/// Where devices relay media when nothing but TCP to 443 gets out (config `turn.*`).
public struct TURNSettings: Sendable {
    /// `turn:` / `turns:` URIs (RFC 7065), e.g. `turn:turn.example.com:3478?transport=udp`,
    /// `turns:turn.example.com:443?transport=tcp`. Empty: no TURN; devices get an empty list.
    public var uris: [String]
    /// coturn's `static-auth-secret`.
    public var sharedSecret: String
    /// How long a credential lasts: longer than the longest call, since a TURN server refuses
    /// an allocation's refreshes once its credential has expired.
    public var ttlSeconds: Int

    public init(uris: [String] = [], sharedSecret: String = "", ttlSeconds: Int = 86_400) {
        self.uris = uris
        self.sharedSecret = sharedSecret
        self.ttlSeconds = ttlSeconds
    }

    public var isEnabled: Bool { !uris.isEmpty }
}

/// Hands each user the TURN servers with a fresh credential of their own.
public struct ICEServerIssuer: Sendable {
    public let settings: TURNSettings
    let clock: any WallClock

    /// Refuses URIs without a secret: coturn would turn every credential away.
    public init(settings: TURNSettings, clock: any WallClock) throws {
        if settings.isEnabled, settings.sharedSecret.isEmpty {
            throw ParleyError(.internalFailure, code: "turn_secret_missing", "turn.uris is set but turn.sharedSecret is empty")
        }
        if settings.isEnabled, settings.ttlSeconds < 60 {
            throw ParleyError(.internalFailure, code: "turn_ttl_too_short", "turn.ttlSeconds must be at least 60")
        }
        if let bad = settings.uris.first(where: { !($0.hasPrefix("turn:") || $0.hasPrefix("turns:")) }) {
            throw ParleyError(.internalFailure, code: "turn_uri_invalid", "turn.uris takes turn: and turns: URIs, not \(bad)")
        }
        self.init(checked: settings, clock: clock)
    }

    private init(checked settings: TURNSettings, clock: any WallClock) {
        self.settings = settings
        self.clock = clock
    }

    /// No TURN servers.
    public static let disabled = ICEServerIssuer(checked: TURNSettings(), clock: SystemWallClock())

    /// The servers for `user`, with a credential that expires `ttlSeconds` from now.
    public func servers(for user: UserID) -> ICEServers {
        guard settings.isEnabled else { return ICEServers(iceServers: [], ttlSeconds: 0) }
        let credential = TURNCredential(user: user, expiry: clock.now().addingTimeInterval(TimeInterval(settings.ttlSeconds)),
                                        secret: settings.sharedSecret)
        return ICEServers(iceServers: [.init(urls: settings.uris, username: credential.username, credential: credential.password)],
                          ttlSeconds: settings.ttlSeconds)
    }
}

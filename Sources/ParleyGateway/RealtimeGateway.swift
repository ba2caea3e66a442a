import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ParleyAccounts
import ParleyCalls
import ParleyChat
import ParleyCore
import ParleyPresence
import ParleyRealtime

/// GET /v1/realtime: one WebSocket per device, authenticated by its access token (the
/// `Authorization` header, or `?token=` for clients that cannot set headers).
public struct RealtimeGateway: Sendable {
    public struct Settings: Sendable {
        public var maxFrameBytes: Int
        public var mailboxCapacity: Int
        /// The bytes a socket's mailbox may hold waiting (``Mailbox``).
        public var mailboxBytes: Int
        /// Open sockets one user may hold, all devices together; more are not upgraded
        /// (the router answers `429 too_many_connections`).
        public var maxConnectionsPerUser: Int
        /// How often a socket asks the store whether its session is still open. A session that
        /// ends closes its sockets at once, on this node and (through the node bus) on every
        /// other; the question asked again only bounds how long a socket could outlive its
        /// session should that word be lost. Commands in between cost no read.
        public var sessionRecheckInterval: Duration
        /// What the `hello` asks of devices: a `ping` this often while they have nothing else to
        /// send, so that one whose network died without a word (no close ever comes) finds out.
        public var clientPingSeconds: Int
        /// One `typing` per person and dialog is passed on this often; more are dropped (`TypingThrottle`).
        public var typingInterval: Duration

        public init(maxFrameBytes: Int = 64 * 1024, mailboxCapacity: Int = 1024, mailboxBytes: Int = Mailbox.defaultByteCapacity,
                    maxConnectionsPerUser: Int = 20,
                    sessionRecheckInterval: Duration = .seconds(10), clientPingSeconds: Int = 25, typingInterval: Duration = .seconds(2)) {
            self.typingInterval = typingInterval
            self.sessionRecheckInterval = sessionRecheckInterval
            self.clientPingSeconds = clientPingSeconds
            self.maxFrameBytes = maxFrameBytes
            self.mailboxCapacity = mailboxCapacity
            self.mailboxBytes = mailboxBytes
            self.maxConnectionsPerUser = maxConnectionsPerUser
        }
    }

    public static let path = "/v1/realtime"

    let accounts: AccountService
    let events: EventLog
    let chat: ChatService
    let calls: CallService
    let settings: Settings
    /// TURN servers for the `hello`, so a device woken for a call has them before it answers.
    let iceServers: ICEServerIssuer
    /// Told when a user's first socket opens and their last one closes (online, last seen).
    let presence: PresenceService?
    /// The work that follows each socket's close, which shutdown waits for.
    public let departures = Departures()
    /// How many `typing` notices go out, shared by every socket on this node.
    let typing: TypingThrottle
    /// What each user may ask of this node, HTTP and realtime together: the upgrade is a request,
    /// and each command one more (`RealtimeSession.handle`).
    let budget: RequestBudget

    public init(accounts: AccountService, events: EventLog, chat: ChatService, calls: CallService,
                iceServers: ICEServerIssuer = .disabled, presence: PresenceService? = nil, settings: Settings = .init(),
                budget: RequestBudget = .unlimited, metrics: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.budget = budget
        self.typing = TypingThrottle(interval: settings.typingInterval, metrics: metrics)
        self.presence = presence
        self.iceServers = iceServers
        self.accounts = accounts
        self.events = events
        self.chat = chat
        self.calls = calls
        self.settings = settings
    }

    /// The HTTP/1 server with WebSocket upgrade on `path`; everything else goes to the router.
    ///
    /// `idleTimeout` (nil: none) bounds how long a connection may wait for its first request head
    /// (`FirstRequestDeadline`) and then, on HTTP, sit idle between requests or stall in one
    /// (Hummingbird's idle handler). Neither stays on an upgraded socket, so the timeout may be
    /// shorter than the devices' ping interval: a realtime socket's liveness is its pings (the
    /// devices' every `clientPingSeconds`, and the server's own WebSocket ping every 30 s, whose
    /// missing pong closes it). Any connection, upgraded or not, whose peer stops taking what it
    /// is sent is closed once it has been that long unwritable (`StalledReaderTimeout`).
    public func serverBuilder(idleTimeout: Duration? = nil) -> HTTPServerBuilder {
        let gateway = self
        let idle = idleTimeout.map(TimeAmount.init)
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: idle),
            ws: .init(maxFrameSize: settings.maxFrameBytes))
        return HTTPServerBuilder { responder in
            let http = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration) { request, channel, logger in
                try await gateway.shouldUpgrade(request, channel: channel, logger: logger)
            }
            guard let idle else { return http }
            return FirstRequestDeadline.Guarded(base: http, within: idle)
        }
    }

    /// Authenticates a `GET /v1/realtime` and upgrades it, or leaves the request to the router.
    func shouldUpgrade(_ request: HTTPRequest, channel: any Channel, logger: Logger) async throws
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let (path, query) = Self.split(request.path), path == Self.path,
              let token = Self.token(headers: request.headerFields, query: query),
              let principal = try? await accounts.authenticate(accessToken: token),
              acceptsAnotherConnection(of: principal.userID),
              budget.take(principal.userID) == nil
        else { return .dontUpgrade }   // the router answers: 401, 429 too_many_connections or rate_limited, or 400 upgrade_required
        var sessionLogger = logger
        sessionLogger[metadataKey: "user"] = "\(principal.userID)"
        let session = RealtimeSession(principal: principal, gateway: self, logger: sessionLogger)
        return .upgrade([:]) { inbound, outbound, _ in
            try await session.run(inbound: inbound, outbound: outbound, channel: channel)
        }
    }

    /// Whether `user` may open one more socket (a soft bound: two at the same instant may both pass).
    public func acceptsAnotherConnection(of user: UserID) -> Bool {
        events.hub.connectionCount(of: user) < settings.maxConnectionsPerUser
    }

    static func split(_ path: String?) -> (String, Substring?)? {
        guard let path else { return nil }
        guard let mark = path.firstIndex(of: "?") else { return (path, nil) }
        return (String(path[..<mark]), path[path.index(after: mark)...])
    }

    static func token(headers: HTTPFields, query: Substring?) -> String? {
        if let header = headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
        }
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix("token=") {
            return String(pair.dropFirst(6)).removingPercentEncoding
        }
        return nil
    }
}

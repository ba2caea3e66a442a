import ParleyCore

/// What the operations routes (`/admin/…`, `/metrics`) read. Each figure belongs to another
/// layer, so each arrives as a closure the app wires in; the defaults report zeros, and an
/// empty `adminToken` refuses every request.
public struct Operations: Sendable {
    /// The bearer token `/admin/…` and `/metrics` require. Empty: nobody is let in.
    public var adminToken: String
    public var version: String
    /// Time since the server started.
    public var uptime: @Sendable () -> Duration
    public var realtime: @Sendable () -> RealtimeStats
    public var calls: @Sendable () async -> CallStats
    public var relay: @Sendable () async -> RelayStats
    /// Nil where the OS does not tell (no `/proc`).
    public var process: @Sendable () -> ProcessStats?
    public var database: @Sendable () async -> DatabaseStatus
    /// APNs figures; `.off` unless push is configured.
    public var push: @Sendable () -> PushStats = { .off }
    /// What every layer records through swift-metrics, and `/metrics` writes out.
    public var metrics = MetricsRegistry()

    public init(
        adminToken: String,
        version: String = ParleyVersion.current,
        uptime: @escaping @Sendable () -> Duration = { .zero },
        realtime: @escaping @Sendable () -> RealtimeStats = { RealtimeStats() },
        calls: @escaping @Sendable () async -> CallStats = { .zero },
        relay: @escaping @Sendable () async -> RelayStats = { .zero },
        process: @escaping @Sendable () -> ProcessStats? = { ProcessStats.current() },
        database: @escaping @Sendable () async -> DatabaseStatus = { DatabaseStatus(kind: "unknown", ok: false) }
    ) {
        self.adminToken = adminToken
        self.version = version
        self.uptime = uptime
        self.realtime = realtime
        self.calls = calls
        self.relay = relay
        self.process = process
        self.database = database
    }

    /// No admin token: the operations routes answer 401 to everyone.
    public static var disabled: Operations { Operations(adminToken: "") }
}

/// Live WebSocket connections, and how many distinct users they belong to.
public struct RealtimeStats: Sendable, Equatable {
    public var connections: Int
    public var onlineUsers: Int

    public init(connections: Int = 0, onlineUsers: Int = 0) {
        self.connections = connections
        self.onlineUsers = onlineUsers
    }
}

/// Which database engine serves, and whether it answered just now.
public struct DatabaseStatus: Sendable, Equatable, Encodable {
    /// `sqlite` or `postgresql`.
    public var kind: String
    public var ok: Bool

    public init(kind: String, ok: Bool) {
        self.kind = kind
        self.ok = ok
    }
}

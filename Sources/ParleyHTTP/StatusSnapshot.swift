import Hummingbird
import ParleyCore

/// Every operations figure at one moment: the `/admin/status` body, and what `/metrics` renders.
public struct StatusSnapshot: Sendable, Equatable, ResponseEncodable {
    public var version: String
    public var uptimeSeconds: Double
    public var connections: Int
    public var onlineUsers: Int
    public var calls: CallStats
    public var relay: RelayStats
    public var process: ProcessFigures
    public var database: DatabaseStatus
    public var push: PushStats

    /// `process` as the API shows it; zeros where the OS does not tell.
    public struct ProcessFigures: Sendable, Equatable, Encodable {
        public var cpuSeconds: Double
        public var residentBytes: UInt64

        public init(_ stats: ProcessStats) {
            cpuSeconds = stats.cpuSeconds
            residentBytes = stats.residentBytes
        }
    }

    public init(
        version: String, uptimeSeconds: Double, connections: Int, onlineUsers: Int, calls: CallStats, relay: RelayStats,
        process: ProcessStats, database: DatabaseStatus, push: PushStats = .off
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.connections = connections
        self.onlineUsers = onlineUsers
        self.calls = calls
        self.relay = relay
        self.process = ProcessFigures(process)
        self.database = database
        self.push = push
    }

    /// Asks every source once.
    public static func gather(_ operations: Operations) async -> StatusSnapshot {
        let realtime = operations.realtime()
        async let calls = operations.calls()
        async let relay = operations.relay()
        async let database = operations.database()
        let uptime = operations.uptime().components
        return StatusSnapshot(
            version: operations.version,
            uptimeSeconds: Double(uptime.seconds) + Double(uptime.attoseconds / 1_000_000_000_000_000) / 1000,
            connections: realtime.connections, onlineUsers: realtime.onlineUsers,
            calls: await calls, relay: await relay,
            process: operations.process() ?? .zero, database: await database, push: operations.push())
    }
}

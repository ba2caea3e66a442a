import Logging
import ParleyHTTP
import ParleyRealtime
import ParleyRelay
import ParleyStorage

extension ParleyServer {
    /// What `/admin/status` and `/metrics` read, from the parts that own each figure.
    /// Calls report zeros until the call service sets `calls`.
    static func operations(
        _ config: ParleyConfiguration, database: Database, hub: EventHub, relay: MediaRelay, logger: Logger
    ) throws -> Operations {
        let started = ContinuousClock.now
        return Operations(
            adminToken: try AdminToken.resolve(config, logger: logger),
            uptime: { ContinuousClock.now - started },
            realtime: { RealtimeStats(connections: hub.connectionCount, onlineUsers: hub.onlineUserCount) },
            relay: { RelayStats(await relay.counters()) },
            database: { DatabaseStatus(kind: database.kind.rawValue, ok: await database.ping()) })
    }
}

extension RelayStats {
    /// The relay's own counters, field for field; drops by their stable reason names.
    init(_ counters: RelayCounters) {
        self.init(
            legs: counters.legs, packetsIn: counters.packetsIn, packetsOut: counters.packetsOut, bytesIn: counters.bytesIn,
            bytesOut: counters.bytesOut, decryptFailures: counters.decryptFailures,
            retransmitted: counters.retransmitted, keyFrameRequests: counters.keyFrameRequests, droppedByReason: counters.droppedByName,
            tcp: RelayStats.TCP(
                connections: counters.tcp.connections, pending: counters.tcp.pending, accepted: counters.tcp.accepted,
                packetsIn: counters.tcp.packetsIn, packetsOut: counters.tcp.packetsOut, bytesIn: counters.tcp.bytesIn,
                bytesOut: counters.tcp.bytesOut, closedByReason: counters.tcp.closedByReason))
        retransmittedAsRTX = counters.retransmittedAsRTX
        rtxForwarded = counters.rtxForwarded
        rtxUnwrapped = counters.rtxUnwrapped
    }
}

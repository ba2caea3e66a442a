/// Process-wide packet counters, for `/admin/status` and `/metrics`.
public struct RelayCounters: Sendable, Hashable {
    /// Legs currently in the table.
    public var legs: Int = 0
    /// Datagrams received on the media socket, of any kind.
    public var packetsIn: UInt64 = 0
    /// Datagrams sent (STUN responses, DTLS records, forwarded SRTP/SRTCP).
    public var packetsOut: UInt64 = 0
    public var bytesIn: UInt64 = 0
    public var bytesOut: UInt64 = 0
    /// SRTP/SRTCP that failed authentication or replay checks.
    public var decryptFailures: UInt64 = 0
    /// Video packets the relay sent again itself, answering a receiver's NACK (RFC 4585 §6.2.1).
    public var retransmitted: UInt64 = 0
    /// Of ``retransmitted``, those sent as RTX (RFC 4588) to a receiver that negotiated it.
    public var retransmittedAsRTX: UInt64 = 0
    /// RTX packets from a sender passed on as RTX, under the receiver's RTX payload type and SSRC.
    public var rtxForwarded: UInt64 = 0
    /// RTX packets from a sender passed on as the original packet, to a receiver without RTX.
    public var rtxUnwrapped: UInt64 = 0
    /// Key frame requests (PLI) the relay sent a sender for a receiver that started listening, again
    /// until the receiver had one (``KeyFrameWait``).
    public var keyFrameRequests: UInt64 = 0
    /// ICE restarts answered (``MediaRelay/restartICE(_:offer:)``).
    public var iceRestarts: UInt64 = 0
    /// Times a leg's media moved to another address (NAT rebinding, network switch; ``MediaPath``).
    public var addressSwitches: UInt64 = 0
    /// TCP's share of the packets and bytes above, and its connections.
    public var tcp = TCPCounters()
    /// Drops by reason, indexed by ``DropReason/rawValue``; a fixed array, so counting never allocates.
    public private(set) var droppedByReason: [UInt64] = Array(repeating: 0, count: DropReason.allCases.count)

    public init() {}

    /// The drops counted for `reason`.
    public subscript(reason: DropReason) -> UInt64 {
        droppedByReason[reason.rawValue]
    }

    /// All drops.
    public var dropped: UInt64 { droppedByReason.reduce(0, +) }

    /// The drop counts keyed by the reason's stable name, for JSON and metrics.
    public var droppedByName: [String: UInt64] {
        Dictionary(uniqueKeysWithValues: DropReason.allCases.map { ($0.description, droppedByReason[$0.rawValue]) })
    }

    @inline(__always)
    mutating func count(_ reason: DropReason) {
        droppedByReason[reason.rawValue] &+= 1
    }
}

/// ICE over TCP (RFC 6544): the framed packets and bytes that went over TCP connections (counted
/// in ``RelayCounters``' totals as well), and what became of the connections.
public struct TCPCounters: Sendable, Hashable {
    /// Connections open now, checked or not.
    public var connections: Int = 0
    /// Connections open now that have not yet sent a valid connectivity check.
    public var pending: Int = 0
    /// Connections accepted since start.
    public var accepted: UInt64 = 0
    /// Connections closed by the relay before they carried anything, by reason.
    public var refusedOverLimit: UInt64 = 0
    public var closedUnauthenticated: UInt64 = 0
    public var closedTimedOut: UInt64 = 0
    public var closedBadFraming: UInt64 = 0
    public var packetsIn: UInt64 = 0
    public var packetsOut: UInt64 = 0
    public var bytesIn: UInt64 = 0
    public var bytesOut: UInt64 = 0

    public init() {}

    /// The closed-by-the-relay counts keyed by stable names, for JSON and metrics.
    public var closedByReason: [String: UInt64] {
        ["over_limit": refusedOverLimit, "unauthenticated": closedUnauthenticated, "timed_out": closedTimedOut,
         "bad_framing": closedBadFraming]
    }
}

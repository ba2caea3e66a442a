/// The media relay's figures since start (counters) and now (`legs`), over UDP and TCP together,
/// with TCP's share beside them. The relay supplies them
/// through `Operations.relay` (its `RelayCounters` map onto this field for field); until then
/// they are all zeros.
public struct RelayStats: Sendable, Equatable, Encodable {
    /// Legs (one per participant's peer connection) currently open.
    public var legs: Int
    public var packetsIn: UInt64
    public var packetsOut: UInt64
    public var bytesIn: UInt64
    public var bytesOut: UInt64
    /// SRTP/SRTCP that failed authentication or replay checks.
    public var decryptFailures: UInt64
    /// Video packets the relay sent again itself, answering receivers' NACKs.
    public var retransmitted: UInt64
    /// Of ``retransmitted``, those sent as RTX (RFC 4588) to receivers that negotiated it.
    public var retransmittedAsRTX: UInt64 = 0
    /// Senders' RTX packets passed on as RTX, and as the original packet to receivers without RTX.
    public var rtxForwarded: UInt64 = 0
    public var rtxUnwrapped: UInt64 = 0
    /// Key frame requests (PLI) the relay sent to senders on behalf of new receivers.
    public var keyFrameRequests: UInt64
    /// Dropped datagrams by the relay's stable reason name (`srtp_auth_fail`, `no_target`, …).
    public var droppedByReason: [String: UInt64]
    /// ICE over TCP: its share of the packets and bytes above, and its connections.
    public var tcp: TCP

    /// The relay's TCP port's figures (RFC 6544 candidates, RFC 4571 framed packets).
    public struct TCP: Sendable, Equatable, Encodable {
        /// Connections open now, and those of them that have not yet passed a connectivity check.
        public var connections: Int
        public var pending: Int
        /// Connections accepted since start.
        public var accepted: UInt64
        public var packetsIn: UInt64
        public var packetsOut: UInt64
        public var bytesIn: UInt64
        public var bytesOut: UInt64
        /// Connections the relay closed before they carried media: `over_limit`, `unauthenticated`,
        /// `timed_out`, `bad_framing`.
        public var closedByReason: [String: UInt64]

        public init(connections: Int = 0, pending: Int = 0, accepted: UInt64 = 0, packetsIn: UInt64 = 0,
                    packetsOut: UInt64 = 0, bytesIn: UInt64 = 0, bytesOut: UInt64 = 0,
                    closedByReason: [String: UInt64] = [:]) {
            self.connections = connections
            self.pending = pending
            self.accepted = accepted
            self.packetsIn = packetsIn
            self.packetsOut = packetsOut
            self.bytesIn = bytesIn
            self.bytesOut = bytesOut
            self.closedByReason = closedByReason
        }
    }

    public init(
        legs: Int = 0, packetsIn: UInt64 = 0, packetsOut: UInt64 = 0, bytesIn: UInt64 = 0, bytesOut: UInt64 = 0,
        decryptFailures: UInt64 = 0, retransmitted: UInt64 = 0, keyFrameRequests: UInt64 = 0,
        droppedByReason: [String: UInt64] = [:], tcp: TCP = TCP()
    ) {
        self.legs = legs
        self.packetsIn = packetsIn
        self.packetsOut = packetsOut
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.decryptFailures = decryptFailures
        self.retransmitted = retransmitted
        self.keyFrameRequests = keyFrameRequests
        self.droppedByReason = droppedByReason
        self.tcp = tcp
    }

    public static let zero = RelayStats()

    /// All drops, whatever the reason.
    public var dropped: UInt64 { droppedByReason.values.reduce(0, &+) }

    enum CodingKeys: String, CodingKey {
        case legs, packetsIn, packetsOut, bytesIn, bytesOut, decryptFailures, retransmitted, retransmittedAsRTX, rtxForwarded,
             rtxUnwrapped, keyFrameRequests, dropped, droppedByReason, tcp
    }

    /// API.md's fields, with `dropped` as the total and the breakdown beside it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(legs, forKey: .legs)
        try container.encode(packetsIn, forKey: .packetsIn)
        try container.encode(packetsOut, forKey: .packetsOut)
        try container.encode(bytesIn, forKey: .bytesIn)
        try container.encode(bytesOut, forKey: .bytesOut)
        try container.encode(decryptFailures, forKey: .decryptFailures)
        try container.encode(retransmitted, forKey: .retransmitted)
        try container.encode(retransmittedAsRTX, forKey: .retransmittedAsRTX)
        try container.encode(rtxForwarded, forKey: .rtxForwarded)
        try container.encode(rtxUnwrapped, forKey: .rtxUnwrapped)
        try container.encode(keyFrameRequests, forKey: .keyFrameRequests)
        try container.encode(dropped, forKey: .dropped)
        try container.encode(droppedByReason, forKey: .droppedByReason)
        try container.encode(tcp, forKey: .tcp)
    }
}

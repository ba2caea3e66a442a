/// The media relay's figures since start (counters) and now (`legs`). The relay supplies them
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
    /// Dropped datagrams by the relay's stable reason name (`srtp_auth_fail`, `no_target`, …).
    public var droppedByReason: [String: UInt64]

    public init(
        legs: Int = 0, packetsIn: UInt64 = 0, packetsOut: UInt64 = 0, bytesIn: UInt64 = 0, bytesOut: UInt64 = 0,
        decryptFailures: UInt64 = 0, droppedByReason: [String: UInt64] = [:]
    ) {
        self.legs = legs
        self.packetsIn = packetsIn
        self.packetsOut = packetsOut
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.decryptFailures = decryptFailures
        self.droppedByReason = droppedByReason
    }

    public static let zero = RelayStats()

    /// All drops, whatever the reason.
    public var dropped: UInt64 { droppedByReason.values.reduce(0, &+) }

    enum CodingKeys: String, CodingKey {
        case legs, packetsIn, packetsOut, bytesIn, bytesOut, decryptFailures, dropped, droppedByReason
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
        try container.encode(dropped, forKey: .dropped)
        try container.encode(droppedByReason, forKey: .droppedByReason)
    }
}

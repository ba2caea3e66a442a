/// Puts a video stream's RTP packets back in sequence order before the depacketizer sees them, as
/// a receiver's jitter buffer does: a packet that arrives after a gap is held while the missing
/// ones are asked for again (generic NACK, RFC 4585 §6.2.1) and may still come — late, or
/// retransmitted — for up to `maxWait`; then the gap is given up and the depacketizer sees it.
///
/// In order and nothing held, a packet passes straight through with no copy; only packets after
/// a gap are copied. Pure: the caller gives the clock and carries out the NACKs.
public struct VideoReorderBuffer: Sendable {
    public struct Packet: Sendable, Equatable {
        public var sequence: UInt16
        public var marker: Bool
        public var payload: [UInt8]
        /// The packet's RTP timestamp.
        public var timestamp: UInt32

        public init(sequence: UInt16, marker: Bool, payload: [UInt8], timestamp: UInt32 = 0) {
            self.sequence = sequence
            self.marker = marker
            self.payload = payload
            self.timestamp = timestamp
        }
    }

    public enum Arrival: Sendable, Equatable {
        /// The next packet expected, with nothing held: hand it on at once.
        case inOrder
        /// Kept until the packets before it come or are given up; `filledGap` when it was one of
        /// the missing ones (late or retransmitted).
        case held(filledGap: Bool)
        /// Already handed on, given up, or a duplicate.
        case late
    }

    struct Missing: Sendable {
        var since: ContinuousClock.Instant
        var lastNACK: ContinuousClock.Instant
        var nacks: Int
    }

    /// How long a gap is waited for.
    public let maxWait: Duration
    /// How long a gap is given to fill by itself (packets reordered on the way) before it is
    /// first asked for; zero asks at once.
    public let firstNACKDelay: Duration
    /// How often a missing packet is asked for again, and how many times at most.
    public let nackInterval: Duration
    public let maxNACKs: Int
    /// The next sequence number to hand on.
    public private(set) var next: UInt16?
    private var held: [UInt16: Packet] = [:]
    private var missing: [UInt16: Missing] = [:]
    /// Packets given up on, by the time they were.
    public private(set) var givenUp = 0

    public init(maxWait: Duration, firstNACKDelay: Duration = .zero, nackInterval: Duration = .milliseconds(100), maxNACKs: Int = 3) {
        self.maxWait = maxWait
        self.firstNACKDelay = firstNACKDelay
        self.nackInterval = nackInterval
        self.maxNACKs = maxNACKs
    }

    /// Whether anything is held back.
    public var isHolding: Bool { !held.isEmpty }

    /// Files one arriving packet. `newlyMissing` gets the sequence numbers this arrival showed to
    /// be missing, to NACK at once — unless there is a ``firstNACKDelay``, after which
    /// ``nacksDue(now:)`` gives them.
    public mutating func arrive(sequence: UInt16, marker: Bool, payload: some Collection<UInt8>, timestamp: UInt32 = 0,
                                now: ContinuousClock.Instant, newlyMissing: inout [UInt16]) -> Arrival {
        guard let expected = next else {
            next = sequence &+ 1
            return .inOrder
        }
        let ahead = sequence &- expected
        if ahead >= 0x8000 { return .late }
        if ahead == 0, held.isEmpty {
            next = sequence &+ 1
            return .inOrder
        }
        if ahead > 512 {
            // Not a gap but a new start (a restarted sender): what was held is given up.
            givenUp += held.count + missing.count
            held.removeAll()
            missing.removeAll()
            next = sequence &+ 1
            return .inOrder
        }
        if held[sequence] != nil { return .late }
        let filledGap = missing.removeValue(forKey: sequence) != nil
        if !filledGap {
            // Everything between the last packet known and this one is missing, newly.
            var gap = expected
            while gap != sequence {
                if held[gap] == nil, missing[gap] == nil {
                    if firstNACKDelay == .zero {
                        missing[gap] = Missing(since: now, lastNACK: now, nacks: 1)
                        newlyMissing.append(gap)
                    } else {
                        missing[gap] = Missing(since: now, lastNACK: now, nacks: 0)
                    }
                }
                gap &+= 1
            }
        }
        held[sequence] = Packet(sequence: sequence, marker: marker, payload: Array(payload), timestamp: timestamp)
        return .held(filledGap: filledGap)
    }

    /// Hands on, in order, what can go: held packets up to the next gap, and past gaps waited for
    /// longer than `maxWait` (given up). Call after each arrival and on a clock tick.
    public mutating func release(now: ContinuousClock.Instant, into out: inout [Packet]) {
        guard var expected = next else { return }
        while !held.isEmpty {
            if let packet = held.removeValue(forKey: expected) {
                out.append(packet)
                expected &+= 1
            } else if let gap = missing[expected], now - gap.since >= maxWait {
                missing[expected] = nil
                givenUp += 1
                expected &+= 1
            } else {
                break
            }
        }
        next = expected
        if held.isEmpty, !missing.isEmpty { missing.removeAll() }   // nothing after them: not gaps
    }

    /// Missing packets due to be asked for again; counts the asking.
    public mutating func nacksDue(now: ContinuousClock.Instant) -> [UInt16] {
        var due: [UInt16] = []
        for (sequence, gap) in missing where gap.nacks < maxNACKs
            && now - gap.lastNACK >= (gap.nacks == 0 ? firstNACKDelay : nackInterval) {
            missing[sequence]?.lastNACK = now
            missing[sequence]?.nacks += 1
            due.append(sequence)
        }
        return due.sorted { ($0 &- (next ?? 0)) < ($1 &- (next ?? 0)) }
    }
}

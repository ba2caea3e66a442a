/// Per-source reception statistics as a receiver computes them for report blocks:
/// extended highest sequence number and loss (RFC 3550 §6.4.1, Appendix A.1 and A.3) and
/// interarrival jitter (RFC 3550 §6.4.1, Appendix A.8). A plain value; updating never allocates.
public struct RTPReceptionStatistics: Sendable, Hashable {
    /// Sequence jumps larger than this restart the count (A.1's MAX_DROPOUT).
    static let maxDropout: UInt16 = 3000
    /// Out-of-order distance tolerated (A.1's MAX_MISORDER).
    static let maxMisorder: UInt16 = 100

    /// The SSRC last counted.
    public private(set) var ssrc: UInt32 = 0
    /// Packets received (duplicates included, as in A.3).
    public private(set) var received: UInt64 = 0
    private var baseSequence: UInt32 = 0
    private var maxSequence: UInt16 = 0
    /// Sequence number wraparounds, shifted left 16 (A.1's `cycles`).
    private var cycles: UInt32 = 0
    private var badSequence: UInt32 = UInt32.max
    private var started = false
    /// Jitter in timestamp units, scaled by 16 as in A.8.
    private var scaledJitter: UInt32 = 0
    private var lastTransit: Int64 = 0
    private var haveTransit = false

    public init() {}

    /// The extended highest sequence number received (A.1).
    public var extendedHighestSequence: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected from the first to the highest sequence number (A.3).
    public var expected: UInt64 {
        started ? UInt64(extendedHighestSequence &- baseSequence) + 1 : 0
    }

    /// Cumulative packets lost (A.3); negative with duplicates.
    public var cumulativeLost: Int64 { Int64(expected) - Int64(received) }

    /// Interarrival jitter in RTP timestamp units (A.8).
    public var jitter: UInt32 { scaledJitter >> 4 }

    /// Counts one packet. `arrival` is the arrival time in the stream's RTP clock units
    /// (any origin); the relay converts its monotonic clock with the negotiated clock rate.
    public mutating func record(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, arrival: UInt32) {
        if !started || ssrc != self.ssrc {
            restart(ssrc: ssrc, sequence: sequence)
        } else if !updateSequence(sequence) {
            return
        }
        received &+= 1
        // A.8: D(i-1,i) from the difference of relative transit times, J += (|D| - J) / 16.
        let transit = Int64(arrival) - Int64(timestamp)
        if haveTransit {
            var d = transit - lastTransit
            // Timestamps and arrival wrap at 2^32; take the short way round.
            if d > Int64(Int32.max) { d -= 1 << 32 } else if d < Int64(Int32.min) { d += 1 << 32 }
            let magnitude = UInt32(clamping: abs(d))
            scaledJitter = scaledJitter &+ magnitude &- ((scaledJitter &+ 8) >> 4)
        }
        lastTransit = transit
        haveTransit = true
    }

    private mutating func restart(ssrc: UInt32, sequence: UInt16) {
        self = RTPReceptionStatistics()
        self.ssrc = ssrc
        started = true
        baseSequence = UInt32(sequence)
        maxSequence = sequence
    }

    /// A.1's update_seq without probation: false when the packet is dropped from the counts.
    private mutating func updateSequence(_ sequence: UInt16) -> Bool {
        let delta = sequence &- maxSequence
        if delta < Self.maxDropout {
            if sequence < maxSequence { cycles &+= 1 << 16 }  // wrapped
            maxSequence = sequence
        } else if delta <= UInt16.max - Self.maxMisorder {
            // A very large jump: restart only after two sequential packets agree (A.1).
            if UInt32(sequence) == badSequence {
                let ssrc = self.ssrc
                restart(ssrc: ssrc, sequence: sequence)
                return true
            }
            badSequence = UInt32(sequence &+ 1)
            return false
        }
        // Otherwise a duplicate or reordered packet: counted, no change to the maximum.
        return true
    }
}

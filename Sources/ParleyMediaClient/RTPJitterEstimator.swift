/// Interarrival jitter of one RTP stream (RFC 3550 §6.4.1), computed as Appendix A.8 writes it:
/// for each packet, the transit time is its arrival minus its RTP timestamp, both in timestamp
/// units; `D` is the change in transit from the previous packet, and `J += (|D| − J) / 16`.
///
/// Packets of one video frame share a timestamp, so their spread in arrival counts as jitter
/// too — the standard behaviour, and what an RTCP receiver report would carry. A pure value:
/// arrival times are given, not read from a clock.
struct RTPJitterEstimator: Sendable, Equatable {
    /// The media clock rate in Hz: 48 000 for Opus (RFC 7587 §4.1), 90 000 for VP8 (RFC 7741 §4.1).
    let clockRate: Int
    /// The current estimate, in timestamp units.
    private(set) var jitter = 0.0
    private var lastTransit: UInt32?

    init(clockRate: Int) {
        self.clockRate = clockRate
    }

    /// The current estimate in seconds.
    var seconds: Double { jitter / Double(clockRate) }

    /// One packet: `arrival` on a clock in timestamp units (any origin, wrapping), `timestamp`
    /// from its RTP header. Differences are taken modulo 2³², so both may wrap.
    mutating func record(arrival: UInt32, timestamp: UInt32) {
        let transit = arrival &- timestamp
        defer { lastTransit = transit }
        guard let lastTransit else { return }
        let d = Int32(bitPattern: transit &- lastTransit).magnitude
        jitter += (Double(d) - jitter) / 16
    }

    /// `instant` on a clock in this stream's timestamp units that starts at `origin` (wraps after 2³² units).
    func arrival(_ instant: ContinuousClock.Instant, since origin: ContinuousClock.Instant) -> UInt32 {
        let elapsed = (instant - origin).components
        let whole = elapsed.seconds &* Int64(clockRate)
        let fraction = Int64(Double(elapsed.attoseconds) * Double(clockRate) / 1e18)
        return UInt32(truncatingIfNeeded: whole &+ fraction)
    }
}

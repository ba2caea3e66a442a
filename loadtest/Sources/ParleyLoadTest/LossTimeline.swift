/// Per-second packet loss that counts only packets that are really lost: sequence gaps, and packets
/// that have not arrived long after they were sent — never packets still in flight, or counted as
/// sent by one side's report and not yet as received by the other's (each side reports once a
/// second, so the two can be up to a second apart).
///
/// Fed the run's cumulative totals once a second. Its state is the cumulative loss
///
///     lost(k) = gaps(k) + max(0, tail(k) − (sent(k) − sent(k − horizon)))
///
/// where `tail = sent − received − gaps` is what lies beyond each receiver's highest sequence
/// number (in flight, or never coming: a stream that stopped). Only the part of the tail older
/// than `horizon` samples counts, and since `lost` is a level rather than a sum of increments, a
/// stalled stream whose packets later turn into gaps (a newer packet arrives) is counted once.
/// A second's loss is the rise of `lost`, over that rise and the packets received in the second
/// (a stall found lost in one second may hold more packets than that second's sending).
public struct LossTimeline: Sendable {
    /// Samples a packet may stay unaccounted for (in flight, or behind a stale report) before it is lost.
    public let horizon: Int
    /// Cumulative packets sent at each sample, from zero before the first.
    private var sent: [Int] = [0]
    /// Packets found lost so far.
    public private(set) var lost = 0
    private var received = 0

    /// What one sample found.
    public struct Second: Sendable, Equatable {
        /// Packets found lost in this second (sent in it or before).
        public var lost: Int
        /// Those and the packets received in it.
        public var expected: Int
        public var percent: Double { expected > 0 ? Double(lost) / Double(expected) * 100 : 0 }
    }

    public init(horizon: Int = 2) {
        self.horizon = max(horizon, 1)
    }

    /// The next sample's cumulative totals; returns the loss found since the previous sample.
    public mutating func add(sent totalSent: Int, received totalReceived: Int, gaps: Int) -> Second {
        sent.append(totalSent)
        let recent = totalSent - sent[max(sent.count - 1 - horizon, 0)]
        let tail = totalSent - totalReceived - max(gaps, 0)
        let level = max(gaps, 0) + max(0, tail - max(recent, 0))
        let rise = max(level - lost, 0)
        lost = max(lost, level)
        let arrived = max(totalReceived - received, 0)
        received = max(received, totalReceived)
        return Second(lost: rise, expected: rise + arrived)
    }
}

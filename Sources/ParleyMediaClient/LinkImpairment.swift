/// A lossy, delayed link as `tc netem` models one, applied in user space to each packet a
/// ``MediaClient`` sends and receives: for machines whose kernel has no `sch_netem`, and for
/// tests that want a link's behaviour without root.
///
/// Each packet independently: lost with probability ``loss``; else sent ``duplicate`` twice;
/// delayed by ``delay`` ± ``jitter`` (uniform, netem's distribution when none is named), so packets
/// overtake one another when the jitter exceeds their spacing; or, with probability ``reorder``,
/// sent at once, ahead of the delayed ones (netem's `reorder`). Correlation is not modelled.
/// Pure: the caller supplies the random numbers.
public struct LinkImpairment: Sendable, Equatable {
    public var delay: Duration
    public var jitter: Duration
    /// Probabilities, 0…1.
    public var loss: Double
    public var duplicate: Double
    public var reorder: Double

    public init(delay: Duration = .zero, jitter: Duration = .zero, loss: Double = 0, duplicate: Double = 0, reorder: Double = 0) {
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.duplicate = duplicate
        self.reorder = reorder
    }

    /// What becomes of one packet.
    public enum Fate: Sendable, Equatable {
        case lost
        /// Delivered `copies` times (1, or 2 when duplicated), `after` from now.
        case delivered(after: Duration, copies: Int)
    }

    public func fate(using random: inout some RandomNumberGenerator) -> Fate {
        if loss > 0, Double.random(in: 0..<1, using: &random) < loss { return .lost }
        let copies = duplicate > 0 && Double.random(in: 0..<1, using: &random) < duplicate ? 2 : 1
        if reorder > 0, Double.random(in: 0..<1, using: &random) < reorder { return .delivered(after: .zero, copies: copies) }
        var after = delay
        if jitter > .zero {
            let spread = Double(jitter.components.seconds) + Double(jitter.components.attoseconds) / 1e18
            after += .seconds(Double.random(in: -spread...spread, using: &random))
        }
        return .delivered(after: max(after, .zero), copies: copies)
    }

    /// Whether it does anything at all.
    public var isNone: Bool { delay == .zero && jitter == .zero && loss == 0 && duplicate == 0 && reorder == 0 }
}

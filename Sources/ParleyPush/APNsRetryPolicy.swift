import Foundation

/// When to try a push again after 429, 5xx or a connection error: exponential backoff with
/// jitter, `Retry-After` when APNs gives one, never past the retry window nor the push's deadline.
/// Pure: the caller passes the time and the randomness.
public struct APNsRetryPolicy: Sendable, Equatable {
    /// The first wait, in seconds; each later one doubles.
    public var initialBackoff: TimeInterval
    /// How long after the first try retries may still start, in seconds.
    public var maxRetryWindow: TimeInterval

    public init(initialBackoff: TimeInterval, maxRetryWindow: TimeInterval) {
        self.initialBackoff = initialBackoff
        self.maxRetryWindow = maxRetryWindow
    }

    public enum Decision: Sendable, Equatable {
        /// Wait this many seconds, then send again.
        case retry(after: TimeInterval)
        /// The next try would start at or after the deadline: the push is not worth sending.
        case expire
        /// The next try would start outside the retry window.
        case giveUp
    }

    /// The wait before retry number `retry` (1 for the first): `Retry-After` if given, else
    /// `initialBackoff · 2^(retry-1)` scaled by a jitter factor between ½ and 1 (`jitter` in 0…1),
    /// so that many pushes refused together do not come back together.
    public func delay(retry: Int, retryAfter: TimeInterval?, jitter: Double) -> TimeInterval {
        if let retryAfter { return retryAfter }
        let exponent = Double(min(max(retry - 1, 0), 16))
        return initialBackoff * pow(2, exponent) * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    /// What to do before retry number `retry` of a push first tried at `startedAt`.
    public func decide(retry: Int, retryAfter: TimeInterval?, jitter: Double,
                       startedAt: Date, now: Date, deadline: Date?) -> Decision {
        let wake = now.addingTimeInterval(delay(retry: retry, retryAfter: retryAfter, jitter: jitter))
        if let deadline, wake >= deadline { return .expire }
        if wake > startedAt.addingTimeInterval(maxRetryWindow) { return .giveUp }
        return .retry(after: wake.timeIntervalSince(now))
    }
}

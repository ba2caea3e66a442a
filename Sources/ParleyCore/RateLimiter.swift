import Foundation
import Synchronization

/// Counts events per key in a sliding window and says when a key has had its share.
/// In memory: one node's view (good enough to slow guessing; a shared store can come later).
public final class RateLimiter: Sendable {
    private let limit: Int
    private let window: TimeInterval
    private let events = Mutex<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `key` may act again, or nil when it may act now.
    public func retryAfter(_ key: String, now: Date) -> Int? {
        events.withLock { events in
            let recent = (events[key] ?? []).filter { now.timeIntervalSince($0) < window }
            events[key] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    public func record(_ key: String, now: Date) {
        events.withLock { events in
            if events.count > 50_000 { // keep memory bounded under a flood of distinct keys
                events = events.filter { _, times in times.contains { now.timeIntervalSince($0) < window } }
            }
            events[key, default: []].append(now)
        }
    }

    public func reset(_ key: String) {
        _ = events.withLock { $0.removeValue(forKey: key) }
    }

    /// Counts one act of `key` if it is within its share; throws `rate_limited` (with how long
    /// to wait) when it is not. The act refused is not counted.
    public func admit(_ key: String, now: Date) throws(ParleyError) {
        if let wait = retryAfter(key, now: now) { throw ParleyError.rateLimited(retryAfter: wait) }
        record(key, now: now)
    }
}

extension ParleyError {
    /// `429 rate_limited`, with a `Retry-After` of `retryAfter` seconds.
    public static func rateLimited(retryAfter: Int) -> ParleyError {
        ParleyError(.rateLimited, code: "rate_limited", "Too many attempts; try again in \(retryAfter) s", retryAfter: retryAfter)
    }
}

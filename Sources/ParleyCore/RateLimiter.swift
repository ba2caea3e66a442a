import Foundation
import Synchronization

/// Counts events per key in a sliding window and says when a key has had its share.
/// In memory: one node's view (good enough to slow guessing; a shared store can come later).
/// On the message path: a check is a few comparisons and an append under one lock, with the
/// expired times dropped from the front as they age out (no filtering or copying per call).
public final class RateLimiter: Sendable {
    /// One key's times in the window, oldest first; `head` skips those already expired.
    struct Window {
        var times: [Date] = []
        var head = 0

        var count: Int { times.count - head }

        mutating func expire(before cutoff: Date) {
            while head < times.count, times[head] <= cutoff { head += 1 }
            if head == times.count {
                times.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32, head * 2 >= times.count {
                times.removeFirst(head)
                head = 0
            }
        }
    }

    /// Keys held before a sweep drops those whose last act left the window.
    static let sweepAt = 50_000

    private let limit: Int
    private let window: TimeInterval
    private let events = Mutex(Windows())

    /// Every key's window, and the size at which the next sweep runs: twice what the last one
    /// left, at least `sweepAt` — under a flood of keys still in their window, a sweep per act
    /// would scan them all every time.
    struct Windows {
        var byKey: [String: Window] = [:]
        var nextSweep = RateLimiter.sweepAt
    }

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `key` may act again, or nil when it may act now.
    public func retryAfter(_ key: String, now: Date) -> Int? {
        events.withLock { events in wait(&events, key, now: now) }
    }

    public func record(_ key: String, now: Date) {
        events.withLock { events in append(&events, key, now: now) }
    }

    public func reset(_ key: String) {
        _ = events.withLock { $0.byKey.removeValue(forKey: key) }
    }

    /// Counts one act of `key` if it is within its share; throws `rate_limited` (with how long
    /// to wait) when it is not. The act refused is not counted.
    public func admit(_ key: String, now: Date) throws(ParleyError) {
        let refused = events.withLock { events -> Int? in
            if let seconds = wait(&events, key, now: now) { return seconds }
            append(&events, key, now: now)
            return nil
        }
        if let refused { throw ParleyError.rateLimited(retryAfter: refused) }
    }

    private func wait(_ events: inout Windows, _ key: String, now: Date) -> Int? {
        guard events.byKey[key] != nil else { return nil }
        events.byKey[key]!.expire(before: now.addingTimeInterval(-window))
        guard let current = events.byKey[key], current.count > 0 else {
            events.byKey[key] = nil
            return nil
        }
        guard current.count >= limit else { return nil }
        let oldest = current.times[current.head]
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
    }

    private func append(_ events: inout Windows, _ key: String, now: Date) {
        if events.byKey.count >= events.nextSweep { // memory stays bounded under a flood of distinct keys
            let cutoff = now.addingTimeInterval(-window)
            events.byKey = events.byKey.filter { _, times in times.times.last.map { $0 > cutoff } ?? false }
            events.nextSweep = max(Self.sweepAt, events.byKey.count * 2)
        }
        events.byKey[key, default: Window()].times.append(now)
    }

    /// Keys held now, and the size of the next sweep (tests).
    var keys: (count: Int, nextSweep: Int) { events.withLock { ($0.byKey.count, $0.nextSweep) } }
}

extension ParleyError {
    /// `429 rate_limited`, with a `Retry-After` of `retryAfter` seconds.
    public static func rateLimited(retryAfter: Int) -> ParleyError {
        ParleyError(.rateLimited, code: "rate_limited", "Too many attempts; try again in \(retryAfter) s", retryAfter: retryAfter)
    }
}

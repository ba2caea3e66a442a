import Foundation

/// A sliding-window count per key, as the rate limits read it: how long `key` must wait, one
/// more act of `key`, forgetting `key`. `RateLimiter`: this process's memory (one node).
/// The accounts' shared counter (`SQLRateCounter`): the database the nodes share, so a limit
/// holds however the load balancer spreads the attempts.
public protocol RateCounter: Sendable {
    /// Seconds until `key` may act again, or nil when it may act now.
    func retryAfter(_ key: String, now: Date) async throws -> Int?
    func record(_ key: String, now: Date) async throws
    func reset(_ key: String) async throws
    /// Counts one act of `key` if it is within its share, in one step; else the wait, uncounted.
    func take(_ key: String, now: Date) async throws -> Int?
}

extension RateLimiter: RateCounter {
    public func take(_ key: String, now: Date) -> Int? {
        do { try admit(key, now: now); return nil } catch { return error.retryAfter ?? 1 }
    }
}

/// The first wait any of `checks` (a counter and the key it counts) asks for, in order; nil when
/// all of them let the act through.
public func firstRetryAfter(_ checks: [(any RateCounter, String)], now: Date) async throws -> Int? {
    for (counter, key) in checks {
        if let wait = try await counter.retryAfter(key, now: now) { return wait }
    }
    return nil
}

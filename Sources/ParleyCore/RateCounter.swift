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

/// Makes the counter of one limit (`name`, `limit` acts per `window` seconds): memory on one
/// node, the shared database's `rate_events` when several nodes share one.
public typealias RateCounters = @Sendable (_ name: String, _ limit: Int, _ window: TimeInterval) -> any RateCounter

extension RateLimiter {
    /// Counters in this process's memory.
    public static let inMemory: RateCounters = { RateLimiter(limit: $1, window: $2) }
}

extension RateCounter {
    /// Counts one act of `key` if it is within its share; throws `rate_limited` (with how long to
    /// wait) when it is not. The act refused is not counted.
    public func admitting(_ key: String, now: Date) async throws {
        if let wait = try await take(key, now: now) { throw ParleyError.rateLimited(retryAfter: wait) }
    }
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

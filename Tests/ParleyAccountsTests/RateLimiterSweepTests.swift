import Foundation
import Testing
@testable import ParleyCore

/// The in-memory limiter behind login, message and other per-key limits (the suite is in
/// AccountRulesTests.swift).
extension RateLimiterTests {
    @Test("a key gets its share in the window, then rate_limited with the wait; an act refused is not counted")
    func shareThenWait() throws {
        let limiter = RateLimiter(limit: 3, window: 60)
        let start = Date(timeIntervalSince1970: 1_000_000)
        for second in 0..<3 { try limiter.admit("ann", now: start.addingTimeInterval(Double(second))) }
        #expect(throws: ParleyError.rateLimited(retryAfter: 50)) { try limiter.admit("ann", now: start.addingTimeInterval(10)) }
        try limiter.admit("bo", now: start.addingTimeInterval(10))
        try limiter.admit("ann", now: start.addingTimeInterval(60.5))
        #expect(limiter.retryAfter("ann", now: start.addingTimeInterval(60.5)) == 1)
    }

    @Test("a flood of distinct keys still in their window is swept when the table doubles, not on every act")
    func sweepsAreAmortised() throws {
        let limiter = RateLimiter(limit: 5, window: 60)
        let start = Date(timeIntervalSince1970: 1_000_000)
        for n in 0..<60_000 { try limiter.admit("address-\(n)", now: start) }
        #expect(limiter.keys.count == 60_000)
        #expect(limiter.keys.nextSweep == 100_000, "the sweep at 50 000 kept them all, so the next waits for twice that")
        let later = start.addingTimeInterval(61)
        for n in 0..<40_001 { try limiter.admit("later-\(n)", now: later) }
        #expect(limiter.keys.count == 40_001, "the sweep at 100 000 dropped every key whose window had passed")
        #expect(limiter.keys.nextSweep == 80_000)
    }
}

import Foundation
import Testing
@testable import ParleyCore

/// The per-user budget every authenticated request and realtime command takes from
/// (`RequestBudget`): a token bucket per user.
@Suite struct RequestBudgetTests {
    let ann = UserID(rawValue: "ann"), bo = UserID(rawValue: "bo")

    @Test("a user has their burst at once, then one a 1/perSecond; what is refused is not taken")
    func burstThenRate() throws {
        let budget = RequestBudget(perSecond: 10, burst: 5)
        let start = ContinuousClock.now
        for _ in 0..<5 { #expect(budget.take(ann, now: start) == nil) }
        #expect(budget.take(ann, now: start) == .milliseconds(100))
        // Refusals take nothing: the next token is still 100 ms after the start, not later.
        #expect(budget.take(ann, now: start) == .milliseconds(100))
        #expect(budget.take(ann, now: start + .milliseconds(60)) == .milliseconds(40))
        #expect(budget.take(ann, now: start + .milliseconds(100)) == nil)
        #expect(budget.take(ann, now: start + .milliseconds(100)) != nil)
        // Another user has a budget of their own.
        #expect(budget.take(bo, now: start + .milliseconds(100)) == nil)
    }

    @Test("the bucket fills again over time, never past the burst")
    func refillsUpToTheBurst() {
        let budget = RequestBudget(perSecond: 2, burst: 3)
        let start = ContinuousClock.now
        for _ in 0..<3 { #expect(budget.take(ann, now: start) == nil) }
        let later = start + .seconds(3600)
        for _ in 0..<3 { #expect(budget.take(ann, now: later) == nil) }
        #expect(budget.take(ann, now: later) == .milliseconds(500))
    }

    @Test("admit throws 429 rate_limited with the whole seconds to wait, at least one")
    func admitThrowsRateLimited() throws {
        let budget = RequestBudget(perSecond: 0.25, burst: 1)
        let start = ContinuousClock.now
        try budget.admit(ann, now: start)
        #expect(throws: ParleyError.rateLimited(retryAfter: 4)) { try budget.admit(ann, now: start) }
        #expect(throws: ParleyError.rateLimited(retryAfter: 1)) { try budget.admit(ann, now: start + .milliseconds(3_500)) }
        #expect(RequestBudget.seconds(.milliseconds(1)) == 1)
        #expect(RequestBudget.seconds(.seconds(2)) == 2)
        #expect(RequestBudget.seconds(.milliseconds(2_001)) == 3)
    }

    @Test("no budget (0 a second) admits everything")
    func unlimited() {
        let start = ContinuousClock.now
        for budget in [RequestBudget.unlimited, RequestBudget(perSecond: 0, burst: 10)] {
            #expect(budget.isUnlimited)
            for _ in 0..<10_000 { #expect(budget.take(ann, now: start) == nil) }
            #expect(budget.held.count == 0)
        }
    }

    @Test("users whose bucket filled again are swept when the table reaches its bound; those still spending stay")
    func sweepsFullBuckets() {
        let budget = RequestBudget(perSecond: 1, burst: 2)
        let start = ContinuousClock.now
        for n in 0..<RequestBudget.sweepAt { _ = budget.take(UserID(rawValue: "u\(n)"), now: start) }
        #expect(budget.held.count == RequestBudget.sweepAt)
        // A second on, every one of them is full again, but for Ann, who spent hers just now.
        let later = start + .seconds(1)
        _ = budget.take(ann, now: later); _ = budget.take(ann, now: later)
        _ = budget.take(bo, now: later)
        #expect(budget.held.count == 2, "the full buckets went, Ann's and Bo's stayed")
        #expect(budget.held.nextSweep == RequestBudget.sweepAt)
        #expect(budget.take(ann, now: later) != nil, "Ann's spent bucket was kept, not forgotten")
    }
}

extension RequestBudgetTests {
    @Test("one refusal of a user a minute is to be told (logged), the rest are not; each user apart")
    func oneRefusalAMinuteIsTold() {
        let budget = RequestBudget(perSecond: 1, burst: 1)
        let start = ContinuousClock.now
        #expect(budget.taking(ann, now: start) == nil)
        #expect(budget.taking(ann, now: start)?.isToBeTold == true)
        #expect(budget.taking(ann, now: start + .milliseconds(500))?.isToBeTold == false)
        #expect(budget.taking(bo, now: start) == nil)
        #expect(budget.taking(bo, now: start)?.isToBeTold == true, "Bo's first refusal is told, whatever Ann's")
        // Admitted now and then, refused between: still told only once a minute.
        #expect(budget.taking(ann, now: start + .seconds(2)) == nil)
        #expect(budget.taking(ann, now: start + .seconds(2))?.isToBeTold == false)
        #expect(budget.taking(ann, now: start + .seconds(61))?.isToBeTold == nil, "a token had come")
        #expect(budget.taking(ann, now: start + .seconds(61))?.isToBeTold == true)
    }
}

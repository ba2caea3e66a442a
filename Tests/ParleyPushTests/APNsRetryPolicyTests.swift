import Foundation
import ParleyPush
import Testing

@Suite("APNs retries: backoff, Retry-After, window and deadline")
struct APNsRetryPolicyTests {
    let policy = APNsRetryPolicy(initialBackoff: 0.5, maxRetryWindow: 30)
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("the wait doubles from the initial backoff, jittered down to half at most")
    func backoffDoubles() {
        #expect((1...5).map { policy.delay(retry: $0, retryAfter: nil, jitter: 1) } == [0.5, 1, 2, 4, 8])
        #expect((1...5).map { policy.delay(retry: $0, retryAfter: nil, jitter: 0) } == [0.25, 0.5, 1, 2, 4])
        #expect(policy.delay(retry: 3, retryAfter: nil, jitter: 0.5) == 1.5)
        #expect(policy.delay(retry: 1000, retryAfter: nil, jitter: 1) == 0.5 * 65536, "the exponent is capped")
    }

    @Test("Retry-After replaces the backoff")
    func retryAfterWins() {
        #expect(policy.delay(retry: 1, retryAfter: 3, jitter: 0) == 3)
        #expect(policy.decide(retry: 1, retryAfter: 3, jitter: 0, startedAt: start, now: start, deadline: nil) == .retry(after: 3))
    }

    @Test("no retry starts at or past the deadline, nor past the window")
    func boundedByDeadlineAndWindow() {
        let now = start.addingTimeInterval(10)
        #expect(policy.decide(retry: 2, retryAfter: nil, jitter: 1, startedAt: start, now: now, deadline: now.addingTimeInterval(1.01))
            == .retry(after: 1))
        #expect(policy.decide(retry: 2, retryAfter: nil, jitter: 1, startedAt: start, now: now, deadline: now.addingTimeInterval(1))
            == .expire)
        #expect(policy.decide(retry: 1, retryAfter: 21, jitter: 1, startedAt: start, now: now, deadline: nil) == .giveUp)
        #expect(policy.decide(retry: 1, retryAfter: 20, jitter: 1, startedAt: start, now: now, deadline: nil) == .retry(after: 20))
        #expect(policy.decide(retry: 1, retryAfter: 21, jitter: 1, startedAt: start, now: now, deadline: now.addingTimeInterval(5))
            == .expire, "past the deadline is expiry even when it is also past the window")
    }
}

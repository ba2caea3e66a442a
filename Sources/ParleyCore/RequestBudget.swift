import CoreMetrics
import Synchronization

/// What one user may ask of a node, all doors together: every authenticated HTTP request and
/// every realtime command, whatever it is. `perSecond` on average, up to `burst` at once — a
/// token bucket per user, refilled as time passes. The per-kind limits (messages a minute,
/// invites, …) bound what an act does to others; this bounds what a user's stream of cheap acts
/// costs the node (a read receipt or a `sync` flooded from 20 sockets would otherwise take the
/// store's one writer, or its readers, from everybody else).
///
/// One node's memory: with several nodes a user's requests spread over them have each node's
/// budget (a load balancer that keeps a user's sockets on one node keeps them on one budget).
/// A check is one lock and a dictionary lookup; a user idle long enough to have a full bucket is
/// the same as one never seen, so sweeps drop them and memory stays bounded by the users active
/// within `burst / perSecond` seconds.
public final class RequestBudget: Sendable {
    /// One user's bucket: the tokens it had at `at`, and when a refusal of theirs was last told
    /// (`Refusal.isToBeTold`).
    struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
        var toldAt: ContinuousClock.Instant? = nil
    }

    /// A refusal: how long until the user's next token, and whether it is the first in
    /// `tellEvery` (the one the caller logs, naming the user: operators see who floods, once a
    /// minute, not every refusal).
    public struct Refusal: Sendable, Equatable {
        public var wait: Duration
        public var isToBeTold: Bool
    }

    /// At most one refusal a user in this long is to be told.
    public static let tellEvery: Duration = .seconds(60)

    struct Buckets {
        var byUser: [UserID: Bucket] = [:]
        var nextSweep = RequestBudget.sweepAt
    }

    /// Users held before a sweep drops those whose bucket has filled up again.
    static let sweepAt = 50_000

    /// Tokens a second; 0 (or less): no budget, everything admitted.
    public let perSecond: Double
    /// The most a user may ask at once.
    public let burst: Double
    private let buckets = Mutex(Buckets())
    private let refused: Counter?

    /// Refusals are counted in `parley_requests_refused_total` when `metrics` is given.
    public init(perSecond: Double, burst: Int, metrics: (any MetricsFactory)? = nil) {
        self.perSecond = perSecond
        self.burst = Double(max(burst, 1))
        refused = metrics.map { Counter(label: "parley_requests_refused_total", factory: $0) }
    }

    /// No budget: every act admitted.
    public static let unlimited = RequestBudget(perSecond: 0, burst: 1)

    public var isUnlimited: Bool { perSecond <= 0 }

    /// Takes one of `user`'s tokens: nil when there was one (the act may go), else how long until
    /// there is (nothing taken).
    public func take(_ user: UserID, now: ContinuousClock.Instant = .now) -> Duration? {
        taking(user, now: now)?.wait
    }

    /// `take`, saying also whether this refusal is the one in `tellEvery` to be logged.
    public func taking(_ user: UserID, now: ContinuousClock.Instant = .now) -> Refusal? {
        guard perSecond > 0 else { return nil }
        let refusal = buckets.withLock { buckets -> (wait: Double, told: Bool)? in
            if buckets.byUser.count >= buckets.nextSweep { sweep(&buckets, now: now) }
            var bucket = buckets.byUser[user].map { refilled($0, now: now) } ?? Bucket(tokens: burst, at: now)
            defer { buckets.byUser[user] = bucket }
            guard bucket.tokens >= 1 else {
                let told = bucket.toldAt.map { now - $0 >= Self.tellEvery } ?? true
                if told { bucket.toldAt = now }
                return ((1 - bucket.tokens) / perSecond, told)
            }
            bucket.tokens -= 1
            return nil
        }
        guard let refusal else { return nil }
        refused?.increment()
        return Refusal(wait: .milliseconds(Int64((refusal.wait * 1000).rounded(.up))), isToBeTold: refusal.told)
    }

    /// `take`, throwing `429 rate_limited` with the whole seconds to wait (at least 1).
    public func admit(_ user: UserID, now: ContinuousClock.Instant = .now) throws(ParleyError) {
        if let wait = take(user, now: now) { throw ParleyError.rateLimited(retryAfter: Self.seconds(wait)) }
    }

    /// A wait as a `Retry-After`: whole seconds, rounded up, at least 1.
    public static func seconds(_ wait: Duration) -> Int {
        let (seconds, attoseconds) = wait.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant) -> Bucket {
        guard now > bucket.at else { return bucket }
        let elapsed = (now - bucket.at) / .seconds(1)
        return Bucket(tokens: min(burst, bucket.tokens + elapsed * perSecond), at: now, toldAt: bucket.toldAt)
    }

    /// Drops the users whose bucket is full again; the next sweep waits until twice as many are
    /// held as are left (under a flood of users all still spending, a sweep per act would scan
    /// them all every time).
    private func sweep(_ buckets: inout Buckets, now: ContinuousClock.Instant) {
        buckets.byUser = buckets.byUser.filter { _, bucket in
            refilled(bucket, now: now).tokens < burst || bucket.toldAt.map { now - $0 < Self.tellEvery } == true
        }
        buckets.nextSweep = max(Self.sweepAt, buckets.byUser.count * 2)
    }

    /// Users held now, and the size of the next sweep (tests).
    var held: (count: Int, nextSweep: Int) { buckets.withLock { ($0.byUser.count, $0.nextSweep) } }
}

import CoreMetrics
import ParleyCore
import Synchronization

/// At most one `typing` per person and dialog is passed on each `interval`; the others are
/// dropped and counted (`parley_typing_dropped_total`).
///
/// One notice goes to every device of every other member (up to 256 members, 20 sockets each),
/// so a flood would fill their mailboxes until their sockets close for falling behind. A notice
/// says "typing for the next few seconds": one an interval tells the others all the rest would.
/// The check comes before any read, so a dropped notice costs a lock and a lookup.
///
/// Counted on this node: a person whose devices are on two nodes may pass two an interval.
final class TypingThrottle: Sendable {
    struct Key: Hashable {
        let user: UserID
        let dialog: DialogID
    }

    private struct State {
        /// When each key's last notice was passed on.
        var passed: [Key: ContinuousClock.Instant] = [:]
        var sweptAt: ContinuousClock.Instant
    }

    let interval: Duration
    /// Keys remembered at most; a sweep forgets those whose interval is over.
    let capacity: Int
    private let state: Mutex<State>
    private let dropped: Counter

    init(interval: Duration, capacity: Int = 50_000, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
         now: ContinuousClock.Instant = .now) {
        self.interval = interval
        self.capacity = max(capacity, 1)
        self.state = Mutex(State(sweptAt: now))
        self.dropped = Counter(label: "parley_typing_dropped_total", factory: metrics)
    }

    /// Whether `user`'s notice in `dialog` goes out now (it then starts the key's interval).
    func admit(_ user: UserID, _ dialog: DialogID, now: ContinuousClock.Instant = .now) -> Bool {
        let key = Key(user: user, dialog: dialog)
        let admitted = state.withLock { state -> Bool in
            if let last = state.passed[key], now - last < interval { return false }
            // Swept once a minute, and when full — at most once an interval, so that a flood of
            // new keys costs one pass over the table per interval, not one per notice.
            let full = state.passed[key] == nil && state.passed.count >= capacity
            if now - state.sweptAt >= max(interval, .seconds(60)) || (full && now - state.sweptAt >= interval) {
                state.passed = state.passed.filter { now - $0.value < interval }
                state.sweptAt = now
            }
            // Still full: everyone in it typed within the interval. Typing is a hint; it waits.
            guard state.passed[key] != nil || state.passed.count < capacity else { return false }
            state.passed[key] = now
            return true
        }
        if !admitted { dropped.increment() }
        return admitted
    }

    /// `user`'s notice in `dialog` did not go out after all (they are not a member): it does not
    /// hold back the next one.
    func forget(_ user: UserID, _ dialog: DialogID) {
        _ = state.withLock { $0.passed.removeValue(forKey: Key(user: user, dialog: dialog)) }
    }

    /// Keys remembered now (for tests of the bound).
    var count: Int { state.withLock { $0.passed.count } }
}

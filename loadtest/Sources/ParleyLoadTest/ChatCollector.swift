import ParleyMediaClient
import Synchronization

/// Counts a chat run as it goes: sends, replies, deliveries and their latencies. Called from the
/// sending task and from every socket's reader, so it is a lock, not an actor.
final class ChatCollector: Sendable {
    struct Snapshot: Sendable {
        var sent = 0
        var acknowledged = 0
        var refused: [String: Int] = [:]
        var expectedDeliveries = 0
        var deliveries = 0
        var duplicates = 0
        var acknowledgement = LatencyHistogram()
        var delivery = LatencyHistogram()
        /// When the last reply and the last delivery came: the rates run from the start to these.
        var lastAcknowledgedAt: ContinuousClock.Instant?
        var lastDeliveredAt: ContinuousClock.Instant?
    }

    private let state = Mutex(Snapshot())
    /// Every event the sockets have received, of any type (`settled(quietFor:within:)`).
    private let events = Atomic<Int>(0)

    var snapshot: Snapshot { state.withLock { $0 } }

    func eventArrived() { events.add(1, ordering: .relaxed) }

    /// Waits until no event has reached any socket for `quiet` (at most `limit`): what connecting
    /// set off (each user's `user.updated` to their friends) has been stored and delivered.
    /// The time waited; nil if the sockets were still receiving at `limit`.
    func settled(quietFor quiet: Duration, within limit: Duration) async -> Duration? {
        let start = ContinuousClock.now, poll = Duration.milliseconds(50)
        var count = events.load(ordering: .relaxed), since = start
        while ContinuousClock.now - start < limit {
            try? await Task.sleep(for: poll)
            let now = ContinuousClock.now, latest = events.load(ordering: .relaxed)
            if latest != count {
                (count, since) = (latest, now)
            } else if now - since >= quiet {
                return since - start
            }
        }
        return nil
    }

    func sent() { state.withLock { $0.sent += 1 } }

    func acknowledged(after seconds: Double, recipients: Int, at instant: ContinuousClock.Instant) {
        state.withLock {
            $0.acknowledged += 1
            $0.lastAcknowledgedAt = max($0.lastAcknowledgedAt ?? instant, instant)
            $0.expectedDeliveries += recipients
            $0.acknowledgement.record(seconds)
        }
    }

    func refused(_ code: String) { state.withLock { $0.refused[code, default: 0] += 1 } }

    func delivered(after seconds: Double, at instant: ContinuousClock.Instant) {
        state.withLock {
            $0.deliveries += 1
            $0.lastDeliveredAt = max($0.lastDeliveredAt ?? instant, instant)
            $0.delivery.record(seconds)
        }
    }
}

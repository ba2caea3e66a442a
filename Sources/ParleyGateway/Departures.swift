import Synchronization

/// What follows a socket's close — its call's device gone, the user's last seen written — runs
/// after the socket is gone. At shutdown every socket closes at once, and the database must wait
/// for that work before it closes, or what it writes is lost.
public final class Departures: Sendable {
    private let running = Mutex(0)

    public init() {}

    /// Runs `work` on a task of its own, counted until it returns.
    func run(_ work: @escaping @Sendable () async -> Void) {
        running.withLock { $0 += 1 }
        Task {
            await work()
            running.withLock { $0 -= 1 }
        }
    }

    /// How many are running.
    public var count: Int { running.withLock { $0 } }

    /// Returns once none is running, or after `limit` (a departure waits on the database, which
    /// may itself be gone).
    public func finished(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

import Foundation
import ParleyCore

/// The time of day and the timers calls run on, injected: the server's are real, a test's move
/// only when the test says so.
public protocol CallTimers: Sendable {
    func now() -> Date
    /// Runs `fire` after `delay` unless the returned handle is cancelled first.
    func schedule(after delay: Duration, _ fire: @escaping @Sendable () async -> Void) -> CallTimerHandle
}

/// Cancels one scheduled timer.
public struct CallTimerHandle: Sendable {
    let cancelAction: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    public func cancel() { cancelAction() }
}

/// Timers on the machine's clock: a task that sleeps.
public struct SystemCallTimers: CallTimers {
    let clock: any WallClock

    public init(clock: any WallClock) { self.clock = clock }

    public func now() -> Date { clock.now() }

    public func schedule(after delay: Duration, _ fire: @escaping @Sendable () async -> Void) -> CallTimerHandle {
        let task = Task {
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            // In a task of its own: what the timer causes may cancel this handle, and must not
            // be cancelled with it.
            await Task { await fire() }.value
        }
        return CallTimerHandle { task.cancel() }
    }
}

import Foundation
import Synchronization

/// The time of day, injected so that tests can move it (token expiry, 24 h stories, ring timers).
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The machine's clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to; for tests and simulations.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) { current.withLock { $0 = date } }
}

import Foundation
import ParleyCore
import ParleyStorage

/// Deletes the shared rate counts' rows no window counts any more. `SQLRateCounter` drops a key's
/// expired rows when that key acts again; a key that never does (a guessed address, a number
/// texted once) would keep its rows for ever without this. The node runs it every minute
/// (`ParleyServer`); every node may, as the rows it deletes are the same on all of them.
public struct RateEventPruner: Sendable {
    let database: Database
    let clock: any WallClock
    /// The longest window of any counter on the table: a row older than that counts for nothing.
    public let keep: TimeInterval

    public init(database: Database, clock: any WallClock, keep: TimeInterval) {
        self.database = database
        self.clock = clock
        self.keep = keep
    }

    /// Deletes every row at or past `keep` (a range on the `rate_events_at` index); how many went.
    @discardableResult
    public func prune() async throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-keep).storageMillis
        return try await database.write { sql in
            try sql.execute("DELETE FROM rate_events WHERE at <= ?", cutoff)
        }
    }
}

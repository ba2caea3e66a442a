import Foundation
import ParleyCore
import ParleyStorage

/// A rate limit's count kept in the database (`rate_events`), for nodes that share one: each act
/// is a row (name, key, time); the window is counted with the index on those three, and a key's
/// expired rows go when it acts again (those of a key that does not, with `RateEventPruner`).
/// Used on PostgreSQL; one node keeps its counts in memory.
public struct SQLRateCounter: RateCounter {
    let database: Database
    /// Which limit (several share the table).
    let name: String
    let limit: Int
    let window: TimeInterval

    public init(database: Database, name: String, limit: Int, window: TimeInterval) {
        self.database = database
        self.name = name
        self.limit = max(limit, 1)
        self.window = window
    }

    public func retryAfter(_ key: String, now: Date) async throws -> Int? {
        let cutoff = now.addingTimeInterval(-window).storageMillis
        let (name, limit, window) = (self.name, self.limit, self.window)
        return try await database.read { sql in
            // The act that must age out first: the limit-th newest in the window.
            let times = try sql.query("""
                SELECT at FROM rate_events WHERE name = ? AND key = ? AND at > ? ORDER BY at DESC LIMIT ?
                """, name, key, cutoff, limit).map { try $0.decode(column: "at", as: Int64.self) }
            guard times.count >= limit, let gate = times.last else { return nil }
            let age = now.timeIntervalSince(Date(storageMillis: gate))
            return max(1, Int((window - age).rounded(.up)))
        }
    }

    public func record(_ key: String, now: Date) async throws {
        let cutoff = now.addingTimeInterval(-window).storageMillis
        let name = self.name
        try await database.write { sql in
            try sql.execute("DELETE FROM rate_events WHERE name = ? AND key = ? AND at <= ?", name, key, cutoff)
            try sql.execute("INSERT INTO rate_events (name, key, at) VALUES (?, ?, ?)", name, key, now.storageMillis)
        }
    }

    public func take(_ key: String, now: Date) async throws -> Int? {
        let cutoff = now.addingTimeInterval(-window).storageMillis
        let (name, limit, window) = (self.name, self.limit, self.window)
        return try await database.write { sql in
            try sql.execute("DELETE FROM rate_events WHERE name = ? AND key = ? AND at <= ?", name, key, cutoff)
            let times = try sql.query("""
                SELECT at FROM rate_events WHERE name = ? AND key = ? ORDER BY at DESC LIMIT ?
                """, name, key, limit).map { try $0.decode(column: "at", as: Int64.self) }
            if times.count >= limit, let gate = times.last {
                return max(1, Int((window - now.timeIntervalSince(Date(storageMillis: gate))).rounded(.up)))
            }
            try sql.execute("INSERT INTO rate_events (name, key, at) VALUES (?, ?, ?)", name, key, now.storageMillis)
            return nil
        }
    }

    public func reset(_ key: String) async throws {
        let name = self.name
        try await database.write { sql in
            try sql.execute("DELETE FROM rate_events WHERE name = ? AND key = ?", name, key)
        }
    }
}

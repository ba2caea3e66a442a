import Logging

/// One versioned step of a domain's schema. `id` is unique across the app ("accounts.1").
public struct Migration: Sendable {
    public let id: String
    public let run: @Sendable (Transaction) throws -> Void

    public init(_ id: String, run: @escaping @Sendable (Transaction) throws -> Void) {
        self.id = id
        self.run = run
    }
}

/// Applies the migrations not yet recorded in `parley_migrations`, in order, each in its own
/// transaction together with its record, so a crash never leaves a half-applied step behind.
/// On PostgreSQL several nodes may start at once: each step's transaction first takes a
/// transaction-scoped advisory lock (`pg_advisory_xact_lock`) and looks again, so whichever node
/// gets there first applies it and the others wait, then find it recorded and go on.
public struct Migrator: Sendable {
    public let database: Database
    public let logger: Logger

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// The ids of `migrations` not yet applied (empty once `run` has finished).
    public func pending(_ migrations: [Migration]) async throws -> [String] {
        let applied = try await database.read { sql in
            Set(try sql.query("SELECT id FROM parley_migrations").map { try $0.decode(column: "id", as: String.self) })
        }
        return migrations.map(\.id).filter { !applied.contains($0) }
    }

    /// The advisory lock's key on PostgreSQL: one for every Parley sharing a database.
    public static let lockKey: Int64 = 0x7061_726c_6579   // "parley"

    public func run(_ migrations: [Migration], now: Int64) async throws {
        try await database.write { sql in
            try Self.lock(sql)
            try sql.execute(#"CREATE TABLE IF NOT EXISTS "parley_migrations" ("id" TEXT PRIMARY KEY, "applied_at" INTEGER NOT NULL)"#)
        }
        let applied = try await database.read { sql in
            Set(try sql.query("SELECT id FROM parley_migrations").map { try $0.decode(column: "id", as: String.self) })
        }
        for migration in migrations where !applied.contains(migration.id) {
            let didApply = try await database.write { sql in
                try Self.lock(sql)
                // Another node may have applied it while this one waited for the lock.
                if try sql.first("SELECT id FROM parley_migrations WHERE id = ?", migration.id) != nil { return false }
                try migration.run(sql)
                try sql.execute("INSERT INTO parley_migrations (id, applied_at) VALUES (?, ?)", migration.id, now)
                return true
            }
            if didApply { logger.info("applied migration", metadata: ["migration": "\(migration.id)"]) }
        }
    }

    /// Serialises migrations across nodes on PostgreSQL (SQLite's single writer already does).
    static func lock(_ sql: Transaction) throws {
        guard sql.kind == .postgresql else { return }
        _ = try sql.query("SELECT pg_advisory_xact_lock(?)", lockKey)
    }
}

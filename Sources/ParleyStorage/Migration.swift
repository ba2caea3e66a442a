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

    public func run(_ migrations: [Migration], now: Int64) async throws {
        try await database.write { sql in
            try sql.execute(#"CREATE TABLE IF NOT EXISTS "parley_migrations" ("id" TEXT PRIMARY KEY, "applied_at" INTEGER NOT NULL)"#)
        }
        let applied = try await database.read { sql in
            Set(try sql.query("SELECT id FROM parley_migrations").map { try $0.decode(column: "id", as: String.self) })
        }
        for migration in migrations where !applied.contains(migration.id) {
            try await database.write { sql in
                try migration.run(sql)
                try sql.execute("INSERT INTO parley_migrations (id, applied_at) VALUES (?, ?)", migration.id, now)
            }
            logger.info("applied migration", metadata: ["migration": "\(migration.id)"])
        }
    }
}

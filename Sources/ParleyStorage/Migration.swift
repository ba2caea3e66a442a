import Logging
import SQLKit

/// One versioned step of a domain's schema. `id` is unique across the app ("accounts.1").
public struct Migration: Sendable {
    public let id: String
    public let run: @Sendable (any SQLDatabase) async throws -> Void

    public init(_ id: String, run: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
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

    public func run(_ migrations: [Migration], now: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.create(table: "parley_migrations").ifNotExists()
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("applied_at", type: .bigint, .notNull)
                .run()
        }
        let applied = try await database.withConnection { sql in
            Set(try await sql.select().column("id").from("parley_migrations").all(decodingColumn: "id", as: String.self))
        }
        for migration in migrations where !applied.contains(migration.id) {
            try await database.transaction { sql in
                try await migration.run(sql)
                try await sql.insert(into: "parley_migrations").columns("id", "applied_at")
                    .values(SQLBind(migration.id), SQLBind(now)).run()
            }
            logger.info("applied migration", metadata: ["migration": "\(migration.id)"])
        }
    }
}

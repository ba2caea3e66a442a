import Foundation
import Logging
import ParleyCore
import SQLKit
import SQLiteKit

/// The store every domain talks to: SQLKit queries over SQLite (one file in the data folder, WAL)
/// or, later, PostgreSQL. Work runs through `withConnection` / `transaction`, so a unit of work
/// sees one connection from start to end whichever engine is behind it.
public final class Database: Sendable {
    public enum Kind: String, Sendable { case sqlite, postgresql }

    public let kind: Kind
    private let sqlite: SQLiteConnection
    private let sql: any SQLDatabase
    /// One SQLite connection serves everything; the lock keeps a transaction's statements
    /// from interleaving with another task's.
    private let lock = AsyncLock()

    private init(kind: Kind, sqlite: SQLiteConnection, sql: any SQLDatabase) {
        self.kind = kind
        self.sqlite = sqlite
        self.sql = sql
    }

    /// Opens (creating if needed) an SQLite database file with WAL journaling and foreign keys on.
    public static func openSQLite(path: String, logger: Logger) async throws -> Database {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        let sql = connection.sql(queryLogLevel: .trace)
        try await sql.raw("PRAGMA journal_mode=WAL").run()
        try await sql.raw("PRAGMA synchronous=NORMAL").run()
        try await sql.raw("PRAGMA foreign_keys=ON").run()
        try await sql.raw("PRAGMA busy_timeout=5000").run()
        return Database(kind: .sqlite, sqlite: connection, sql: sql)
    }

    /// Runs `body` with exclusive use of a connection.
    public func withConnection<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await lock.withLock { try await body(sql) }
    }

    /// Runs `body` in a transaction: committed if it returns, rolled back if it throws.
    public func transaction<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await lock.withLock {
            try await sql.raw("BEGIN IMMEDIATE").run()
            do {
                let result = try await body(sql)
                try await sql.raw("COMMIT").run()
                return result
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// True when a trivial query answers (for /health and /admin/status).
    public func ping() async -> Bool {
        (try? await withConnection { try await $0.raw("SELECT 1 AS one").first() }) != nil
    }

    public func close() async throws {
        try await sqlite.close()
    }
}

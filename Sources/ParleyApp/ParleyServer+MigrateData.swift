import Foundation
import Logging
import ParleyCore
import ParleyStorage

extension ParleyServer {
    /// `parley migrate-data`: copies the SQLite database at `sqlitePath` (opened read-only, never
    /// changed) into the empty PostgreSQL database `postgreSQLURL` names, after giving it every
    /// migration a server runs (`DatabaseCopy` says what is checked). `copied` hears of each
    /// table as it is done. Files (avatars, attachments) are not in the database: they move apart.
    public static func migrateData(
        fromSQLite sqlitePath: String, toPostgreSQL postgreSQLURL: String, clock: any WallClock = SystemWallClock(),
        logger: Logger, copied: (String, Int) -> Void = { _, _ in }
    ) async throws -> CopyReport {
        let url = try PostgreSQLURL(postgreSQLURL)
        let source = try await Database.openSQLiteReadOnly(path: sqlitePath, logger: logger)
        let target: Database
        do {
            // The copy runs one statement at a time: two connections are plenty.
            target = try await Database.openPostgreSQL(url: url.with(pool: min(url.pool, 2)), logger: logger)
        } catch {
            try? await source.close()
            throw error
        }
        do {
            let report = try await DatabaseCopy(from: source, to: target, migrations: migrations, logger: logger)
                .run(now: clock.now().storageMillis, copied: copied)
            try await target.close()
            try await source.close()
            return report
        } catch {
            try? await target.close()
            try? await source.close()
            throw error
        }
    }
}

import CParleySQLite
import Foundation
import Logging
import ParleyStorage
import ParleyTestSupport
import Testing

/// Every connection writes its WAL through Parley's VFS, which gathers a transaction's frames into
/// one write (WALWrites.c). What it must show: writes were gathered, and whatever was acknowledged
/// is in the WAL file the moment it is acknowledged — a copy of the files taken right then, while
/// the database is still open, is recovered from the WAL (SQLite checks every frame's checksum
/// and stops at the first that does not hold) with every row.
@Suite struct WALWritesTests {
    /// The database file at `path`, then its WAL, copied into `directory`/copy and opened there:
    /// SQLite recovers the copy from its WAL (no -shm beside it).
    static func recoveredCopy(of path: String, in directory: String) async throws -> Database {
        let copy = directory + "/copy"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: copy + "/test.sqlite")
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "/test.sqlite-wal")
        return try await Database.openSQLite(path: copy + "/test.sqlite", logger: Logger(label: "test"))
    }

    @Test func acknowledgedWritesAreInTheWALFileAndFramesWereGathered() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-wal-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/test.sqlite"
        let database = try await Database.openSQLite(path: path, logger: Logger(label: "test"))
        try await database.write { try $0.execute("CREATE TABLE rows (n INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        let (gathered, made) = (parley_sqlite3_wal_writes_gathered(), parley_sqlite3_wal_writes_made())
        // 2 000 writers at once (their transactions share commits), each a row of 1–6 KiB.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<2_000 {
                group.addTask {
                    try await database.write { sql in
                        _ = try sql.execute("INSERT INTO rows (n, body) VALUES (?, ?)", n, String(repeating: "\(n % 10)", count: 1_024 * (1 + n % 6)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let gatheredNow = parley_sqlite3_wal_writes_gathered() - gathered, madeNow = parley_sqlite3_wal_writes_made() - made
        #expect(gatheredNow > 2 * madeNow, "SQLite's \(gatheredNow) writes into the WAL reached the kernel as \(madeNow)")

        // Copied while open, right after the last acknowledgement.
        let recovered = try await Self.recoveredCopy(of: path, in: directory)
        let rows = try await recovered.read { sql in
            try sql.query("SELECT n, length(body) AS size, substr(body, 1, 1) AS digit FROM rows").map {
                (try $0.decode(column: "n", as: Int.self), try $0.decode(column: "size", as: Int.self), try $0.decode(column: "digit", as: String.self))
            }
        }
        #expect(rows.count == 2_000)
        #expect(rows.allSatisfy { $0.1 == 1_024 * (1 + $0.0 % 6) && $0.2 == "\($0.0 % 10)" })
        #expect(try await recovered.read { try $0.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        try await recovered.close()
        try await database.close()
    }

    /// A transaction larger than the cache spills pages into the WAL before its commit; a page
    /// changed again after that is written over its frame, and SQLite then rewrites the headers'
    /// checksums from there on — writes into frames already written, some after the commit frame.
    /// Recovery follows the checksum chain and stops where it breaks: a copy taken right after the
    /// commit is recovered with every row, and the rows changed after the spill as changed.
    @Test func aTransactionThatSpillsAndRewritesFramesIsRecoveredWhole() async throws {
        let directory = try makeTemporaryDirectory(prefix: "parley-wal").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/test.sqlite"
        let database = try await Database.openSQLite(path: path, logger: Logger(label: "test"))
        try await database.write { try $0.execute("CREATE TABLE rows (n INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        try await database.write { sql in
            try sql.execute(script: "PRAGMA cache_size = 16")   // 16 pages: 3 MB of rows spill
            for n in 0..<3_000 { _ = try sql.execute("INSERT INTO rows (n, body) VALUES (?, ?)", n, String(repeating: "a", count: 1_000)) }
            for n in stride(from: 0, to: 3_000, by: 7) { _ = try sql.execute("UPDATE rows SET body = ? WHERE n = ?", String(repeating: "b", count: 1_000), n) }
        }
        try await database.write { try $0.execute(script: "PRAGMA cache_size = -65536") }

        let recovered = try await Self.recoveredCopy(of: path, in: directory)
        let counts = try await recovered.read { sql in
            (try sql.scalar("SELECT count(*) FROM rows", as: Int.self), try sql.scalar("SELECT count(*) FROM rows WHERE body LIKE 'b%'", as: Int.self))
        }
        #expect(counts.0 == 3_000 && counts.1 == (3_000 + 6) / 7, "rows \(String(describing: counts))")
        #expect(try await recovered.read { try $0.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        try await recovered.close()
        try await database.close()
    }
}

import CParleySQLite
import Foundation
import Logging
import ParleyStorage
import Testing

/// The wrapper around SQLite's page cache holds a page that a rebalance moves to SQLite's scratch
/// number under another number (PageCache.c). Random keys split pages all over an index, and
/// rebalances reorder the new pages through the scratch number: the wrapper must have done so,
/// and the database must come out whole and as written — after the writer's commits, and read
/// back from the file by a connection that opens it afresh.
@Suite struct PageCacheTests {
    @Test func pagesMovedThroughTheScratchNumberLeaveTheDatabaseWholeAndAsWritten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-pcache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/test.sqlite"
        let database = try await Database.openSQLite(path: path, logger: Logger(label: "test"))
        try await database.write {
            try $0.execute("CREATE TABLE rows (key TEXT PRIMARY KEY, n INTEGER NOT NULL, body TEXT NOT NULL)")
            try $0.execute("CREATE INDEX rows_n ON rows (n, key)")
        }
        let before = parley_sqlite3_page_cache_scratch_moves()
        var generator = SystemRandomNumberGenerator()
        var expected: [String: Int] = [:]
        // 40 transactions of 500 rows each, keys in no order; every fourth transaction also
        // deletes and changes rows written before.
        for round in 0..<40 {
            var rows: [(String, Int)] = []
            for _ in 0..<500 {
                let key = String(UInt64.random(in: 0...UInt64.max, using: &generator), radix: 36)
                rows.append((key, Int.random(in: 0..<1_000_000, using: &generator)))
            }
            let removed = round % 4 == 3 ? Array(expected.keys.shuffled(using: &generator).prefix(300)) : []
            let changed = round % 4 == 3 ? Array(expected.keys.filter { !removed.contains($0) }.prefix(200)) : []
            let written = rows
            try await database.write { sql in
                for (key, n) in written {
                    try sql.execute("INSERT INTO rows (key, n, body) VALUES (?, ?, ?)", key, n, String(repeating: key, count: 3))
                }
                for key in removed { try sql.execute("DELETE FROM rows WHERE key = ?", key) }
                for key in changed { try sql.execute("UPDATE rows SET n = n + 1 WHERE key = ?", key) }
            }
            for (key, n) in rows { expected[key] = n }
            for key in removed { expected[key] = nil }
            for key in changed { expected[key]! += 1 }
        }
        #expect(parley_sqlite3_page_cache_scratch_moves() > before, "rebalances moved pages through the scratch number")
        let check = try await database.read { try $0.scalar("PRAGMA integrity_check", as: String.self) }
        #expect(check == "ok")
        try await database.close()

        // A fresh connection reads what the file holds.
        let reopened = try await Database.openSQLite(path: path, logger: Logger(label: "test"))
        let stored = try await reopened.read { sql in
            try sql.query("SELECT key, n, body FROM rows").map {
                (try $0.decode(column: "key", as: String.self), try $0.decode(column: "n", as: Int.self), try $0.decode(column: "body", as: String.self))
            }
        }
        #expect(stored.count == expected.count)
        #expect(stored.allSatisfy { expected[$0.0] == $0.1 && $0.2 == String(repeating: $0.0, count: 3) })
        let byIndex = try await reopened.read { try $0.scalar("SELECT count(*) FROM rows INDEXED BY rows_n WHERE n >= 0", as: Int.self) }
        #expect(byIndex == expected.count)
        #expect(try await reopened.read { try $0.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        try await reopened.close()
    }
}

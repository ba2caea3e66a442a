import Foundation
import Logging
import ParleyStorage
import Synchronization
import Testing

/// SQLite's group commit runs a batch without savepoints first. A job that throws before it
/// changes anything is answered alone and its batch commits with every closure run once; one that
/// throws after changing something sends its batch round again, each job in a savepoint, and only
/// it is undone — a table it created included.
@Suite struct GroupCommitTests {
    struct Refused: Error { let n: Int }

    /// How many times each item's closure ran.
    final class Runs: Sendable {
        let counts = Mutex<[Int: Int]>([:])
        func ran(_ n: Int) { counts.withLock { $0[n, default: 0] += 1 } }
        var all: [Int] { counts.withLock { Array($0.values) } }
    }

    static func open() async throws -> (Database, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-commit-\(UUID().uuidString)").path
        let database = try await Database.openSQLite(path: directory + "/test.sqlite", logger: Logger(label: "test"))
        try await database.write { try $0.execute("CREATE TABLE items (n INTEGER PRIMARY KEY, label TEXT)") }
        return (database, directory)
    }

    /// Writes `count` items at once (so that they share commits); `body` is each one's closure.
    static func writeAll(_ database: Database, count: Int, runs: Runs,
                         _ body: @escaping @Sendable (Transaction, Int) throws -> Void) async -> Set<Int> {
        await withTaskGroup(of: Int?.self) { group in
            for n in 0..<count {
                group.addTask {
                    do {
                        try await database.write { sql in
                            runs.ran(n)
                            try body(sql, n)
                        }
                        return n
                    } catch is Refused {
                        return nil
                    } catch {
                        Issue.record("unexpected \(error)")
                        return nil
                    }
                }
            }
            return await group.reduce(into: Set<Int>()) { if let n = $1 { $0.insert(n) } }
        }
    }

    @Test func aJobThatRefusesBeforeWritingLeavesItsBatchRunOnce() async throws {
        let (database, directory) = try await Self.open()
        let runs = Runs()
        let committed = await Self.writeAll(database, count: 400, runs: runs) { sql, n in
            _ = try sql.scalar("SELECT COUNT(*) FROM items", as: Int.self)
            if n % 5 == 0 { throw Refused(n: n) }
            try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", n, "item \(n)")
        }
        #expect(committed == Set((0..<400).filter { $0 % 5 != 0 }))
        #expect(runs.all.allSatisfy { $0 == 1 }, "no closure ran twice")
        let kept = try await database.read { sql in
            Set(try sql.query("SELECT n FROM items").map { try $0.decode(column: "n", as: Int.self) })
        }
        #expect(kept == committed)
        try await database.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func aJobThatFailsAfterWritingIsUndoneAloneItsTableIncluded() async throws {
        let (database, directory) = try await Self.open()
        let runs = Runs()
        let committed = await Self.writeAll(database, count: 400, runs: runs) { sql, n in
            try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", n, "item \(n)")
            if n % 40 == 0 { try sql.execute("CREATE TABLE extra_\(n) (x INTEGER)") }
            if n % 20 == 0 { throw Refused(n: n) }
        }
        #expect(committed == Set((0..<400).filter { $0 % 20 != 0 }))
        let (kept, tables) = try await database.read { sql in
            (Set(try sql.query("SELECT n FROM items").map { try $0.decode(column: "n", as: Int.self) }),
             try sql.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'extra%'", as: Int.self))
        }
        #expect(kept == committed)
        #expect(tables == 0)
        // Batch mates of a failure ran again, in savepoints: some closure ran twice.
        #expect(runs.all.contains(2))
        try await database.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

import Foundation
import Logging
import ParleyStorage
import Synchronization
import Testing

/// The writer thread, group commit and the read connections, against a real SQLite file.
@Suite struct DatabaseTests {
    struct Refused: Error, Equatable { let n: Int }

    static func open() async throws -> (Database, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-db-\(UUID().uuidString)").path
        let database = try await Database.openSQLite(path: directory + "/test.sqlite", logger: Logger(label: "test"))
        try await database.write { try $0.execute("CREATE TABLE items (n INTEGER PRIMARY KEY, label TEXT)") }
        return (database, directory)
    }

    @Test func concurrentTransactionsAllCommitAndOneThatThrowsIsUndoneAlone() async throws {
        let (database, directory) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 600 writers at once: they queue while a commit runs and share the next ones.
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<600 {
                group.addTask {
                    do {
                        try await database.write { sql in
                            try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", n, "item \(n)")
                            if n % 7 == 0 { throw Refused(n: n) }
                        }
                        return (n, true)
                    } catch let refused as Refused {
                        #expect(refused.n == n)
                        return (n, false)
                    } catch {
                        Issue.record("unexpected \(error)")
                        return (n, false)
                    }
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        let kept = try await database.read { sql in
            Set(try sql.query("SELECT n FROM items").map { try $0.decode(column: "n", as: Int.self) })
        }
        #expect(kept == Set(outcomes.filter(\.value).map(\.key)))
        let refused: Int = (0..<600).filter { $0 % 7 == 0 }.count
        #expect(kept.count == 600 - refused)
        try await database.close()
    }

    @Test func afterCommitRunsOnlyWhenTheTransactionCommits() async throws {
        let (database, directory) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ran = Mutex<[String]>([])
        try await database.write { sql in
            try sql.execute("INSERT INTO items (n, label) VALUES (1, 'one')")
            sql.afterCommit { ran.withLock { $0.append("committed") } }
        }
        await #expect(throws: Refused.self) {
            try await database.write { sql in
                sql.afterCommit { ran.withLock { $0.append("rolled back") } }
                throw Refused(n: 2)
            }
        }
        // A constraint failure rolls back its own transaction only.
        await #expect(throws: SQLiteError.self) {
            try await database.write { try $0.execute("INSERT INTO items (n, label) VALUES (1, 'again')") }
        }
        #expect(ran.withLock { $0 } == ["committed"])
        #expect(try await database.read { try $0.scalar("SELECT label FROM items WHERE n = 1", as: String.self) } == "one")
        try await database.close()
    }

    @Test func valuesRoundTripAndNullsReadAsNil() async throws {
        let (database, directory) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await database.write { sql in
            try sql.execute("CREATE TABLE kinds (i INTEGER, r REAL, t TEXT, b BLOB, z TEXT)")
            try sql.execute("INSERT INTO kinds VALUES (?, ?, ?, ?, ?)", Int64.max, 2.5, "ünï ✓", SQLValue.blob([0, 1, 255]), String?.none)
        }
        let row = try #require(try await database.read { try $0.first("SELECT i, r, t, b, z FROM kinds") })
        #expect(try row.decode(column: "i", as: Int64.self) == Int64.max)
        #expect(try row.decode(column: "r", as: Double.self) == 2.5)
        #expect(try row.decode(column: "t", as: String.self) == "ünï ✓")
        #expect(try row.decode(column: "z", as: String?.self) == nil)
        #expect(throws: StorageError.self) { try row.decode(column: "z", as: String.self) }
        #expect(throws: StorageError.self) { try row.decode(column: "missing", as: String.self) }
        try await database.close()
    }

    @Test func aClosedDatabaseRefusesWork() async throws {
        let (database, directory) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await database.close()
        await #expect(throws: StorageError.self) { try await database.write { try $0.execute("DELETE FROM items") } }
        await #expect(throws: StorageError.self) { try await database.read { try $0.query("SELECT n FROM items") } }
    }
}

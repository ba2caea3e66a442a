import Foundation
import Logging
@testable import ParleyStorage
import ParleyTestSupport
import Synchronization
import Testing

/// Transactions, their rollback and after-commit actions, and values, on both engines: SQLite's
/// writer thread with group commit and its read connections against a real file, and a pool of
/// PostgreSQL connections against a database of its own on the test server.
@Suite struct DatabaseTests {
    struct Refused: Error, Equatable { let n: Int }

    /// A database with an `items` table, and what removes it.
    static func open(_ engine: TestEngine) async throws -> (Database, @Sendable () async -> Void) {
        let database: Database
        let cleanup: @Sendable () async -> Void
        switch engine {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-db-\(UUID().uuidString)").path
            database = try await Database.openSQLite(path: directory + "/test.sqlite", logger: Logger(label: "test"))
            cleanup = { try? FileManager.default.removeItem(atPath: directory) }
        case .postgresql:
            let url = try await TestPostgreSQL.freshDatabase(pool: 4)
            database = try await Database.openPostgreSQL(url: PostgreSQLURL(url), logger: Logger(label: "test"))
            cleanup = { await TestPostgreSQL.drop(url) }
        }
        try await database.write { try $0.execute("CREATE TABLE items (n INTEGER PRIMARY KEY, label TEXT)") }
        return (database, cleanup)
    }

    /// A statement's own failure: SQLite's or PostgreSQL's error, a constraint violation.
    static func isConstraintViolation(_ error: (any Error)?) -> Bool {
        switch error {
        case let error as SQLiteError: error.isConstraintViolation
        case let error as PostgreSQLError: error.isConstraintViolation
        default: false
        }
    }

    @Test(arguments: TestEngine.allCases)
    func concurrentTransactionsAllCommitAndOneThatThrowsIsUndoneAlone(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        // 600 writers at once: on SQLite they queue while a commit runs and share the next ones;
        // on PostgreSQL they run four at a time, one per connection.
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
        await cleanup()
    }

    @Test(arguments: TestEngine.allCases)
    func afterCommitRunsOnlyWhenTheTransactionCommits(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
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
        let failure = await #expect(throws: (any Error).self) {
            try await database.write { try $0.execute("INSERT INTO items (n, label) VALUES (1, 'again')") }
        }
        #expect(Self.isConstraintViolation(failure))
        #expect(ran.withLock { $0 } == ["committed"])
        #expect(try await database.read { try $0.scalar("SELECT label FROM items WHERE n = 1", as: String.self) } == "one")
        try await database.close()
        await cleanup()
    }

    /// Statements only `send`: committed with the rest; one that fails (here a duplicate key,
    /// with statements after it) fails its whole transaction with its own error — on PostgreSQL,
    /// where it was not waited for, when the next statement or the commit waits — and leaves
    /// nothing behind for the next transaction on the same connection.
    @Test(arguments: TestEngine.allCases)
    func sentStatementsCommitWithTheRestAndOneThatFailsFailsItsTransaction(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        let count = try await database.write { sql in
            for n in 1...5 { try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", n, "sent \(n)") }
            return try sql.scalar("SELECT COUNT(*) FROM items", as: Int.self)
        }
        #expect(count == 5, "a statement that waits sees what was sent before it")
        for failingLast in [false, true] {
            let failure = await #expect(throws: (any Error).self) {
                try await database.write { sql in
                    try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", 10, "ten")
                    try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", 1, "again")   // n = 1 is taken
                    if !failingLast { try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", 11, "eleven") }
                }
            }
            #expect(Self.isConstraintViolation(failure), "the duplicate's own error, not a later one's: \(String(describing: failure))")
        }
        // Every connection of the pool takes a transaction after the failures: none is left with one.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 20..<40 {
                group.addTask { try await database.write { try $0.send("INSERT INTO items (n, label) VALUES (?, ?)", n, "after") } }
            }
            try await group.waitForAll()
        }
        let labels = try await database.read { try $0.query("SELECT n FROM items ORDER BY n").map { try $0.first(as: Int.self) } }
        #expect(labels == Array(1...5) + Array(20..<40))
        try await database.close()
        await cleanup()
    }

    /// `writeAutocommit`: what its closure read and changed is committed, and its after-commit
    /// actions run; on PostgreSQL without a transaction around it — a statement that failed
    /// leaves no transaction open (the next writes on every connection of the pool commit), and a
    /// second change is refused before it runs, since the first has committed alone by then.
    @Test(arguments: TestEngine.allCases)
    func anAutocommitWriteCommitsItsChangeAndLeavesNoTransactionOpen(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        let ran = Mutex(false)
        let seen = try await database.writeAutocommit { sql in
            let before = try sql.scalar("SELECT COUNT(*) FROM items", as: Int.self)
            try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", 1, "one")
            sql.afterCommit { ran.withLock { $0 = true } }
            return before
        }
        #expect(seen == 0 && ran.withLock { $0 })
        let failure = await #expect(throws: (any Error).self) {
            try await database.writeAutocommit { sql in
                _ = try sql.query(" select n FROM items")
                try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", 1, "again")   // n = 1 is taken
            }
        }
        #expect(Self.isConstraintViolation(failure))
        var refused: (any Error)?
        do {
            try await database.writeAutocommit { sql in
                try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", 2, "two")
                try sql.send("INSERT INTO items (label, n) VALUES (?, ?)", "three", 3)
            }
        } catch {
            refused = error
        }
        if engine == .postgresql {
            guard case .secondChange(let sql)? = refused as? StorageError else {
                Issue.record("a second change should be refused, got \(String(describing: refused))")
                return
            }
            #expect(sql.contains("(label, n)"), "the second statement is the one refused")
        } else {
            #expect(refused == nil, "SQLite commits the closure's statements together")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 20..<30 {
                group.addTask { _ = try await database.write { try $0.execute("INSERT INTO items (n, label) VALUES (?, ?)", n, "after") } }
            }
            try await group.waitForAll()
        }
        let numbers = try await database.read { try $0.query("SELECT n FROM items ORDER BY n").map { try $0.first(as: Int.self) } }
        // On PostgreSQL the first change committed alone and the second never ran.
        #expect(numbers == (engine == .postgresql ? [1, 2] : [1, 2, 3]) + Array(20..<30))
        try await database.close()
        await cleanup()
    }

    @Test("a statement counts as a read only when it starts with SELECT")
    func whatCountsAsARead() {
        for sql in ["SELECT 1", "  select n FROM items", "\n\tSelect(1)", "SELECT"] { #expect(Transaction.isSelect(sql), "\(sql)") }
        for sql in ["INSERT INTO items VALUES (1)", "WITH x AS (SELECT 1) SELECT * FROM x", "SELECTED", "UPDATE items SET n = 1", ""] {
            #expect(!Transaction.isSelect(sql), "\(sql)")
        }
    }

    /// `readAutocommit`: one statement's answer, what was committed before it; one that fails
    /// throws its own error and leaves every connection of the pool able to take the next work.
    @Test(arguments: TestEngine.allCases)
    func anAutocommitReadAnswersItsStatementAndAFailureLeavesNothingBehind(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        try await database.write { try $0.execute("INSERT INTO items (n, label) VALUES (?, ?)", 1, "one") }
        #expect(try await database.readAutocommit { try $0.scalar("SELECT label FROM items WHERE n = ?", 1, as: String.self) } == "one")
        await #expect(throws: (any Error).self) {
            try await database.readAutocommit { try $0.query("SELECT nothing FROM items") }
        }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<12 {
                group.addTask {
                    try await database.write { try $0.execute("INSERT INTO items (n, label) VALUES (?, ?)", 10 + n, "more") }
                    return try await database.readAutocommit { try $0.scalar("SELECT COUNT(*) FROM items WHERE n >= 10", as: Int.self) } ?? 0
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.count == 12 && counts.allSatisfy { (1...12).contains($0) } && counts.max() == 12)
        try await database.close()
        await cleanup()
    }

    /// Several reads at once (`query(each:)`): each statement's own rows, in order, in a read and
    /// in a write (after statements only sent); a statement that fails throws its own error.
    @Test(arguments: TestEngine.allCases)
    func statementsReadTogetherAnswerEachInOrder(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        let inWrite = try await database.write { sql in
            for n in 1...4 { try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", n, "l\(n)") }
            return try sql.query(each: [SQLStatement("SELECT n FROM items WHERE n > ? ORDER BY n", 2),
                                        SQLStatement("SELECT COUNT(*) FROM items")])
                .map { try $0.map { try $0.first(as: Int.self) } }
        }
        #expect(inWrite == [[3, 4], [4]])
        let inRead = try await database.read { sql in
            try sql.query(each: [SQLStatement("SELECT label FROM items WHERE n = ?", 2),
                                 SQLStatement("SELECT label FROM items WHERE n = ?", 99),
                                 SQLStatement("SELECT label FROM items WHERE n IN (?, ?) ORDER BY n", 1, 4)])
                .map { try $0.map { try $0.first(as: String.self) } }
        }
        #expect(inRead == [["l2"], [], ["l1", "l4"]])
        await #expect(throws: (any Error).self) {
            try await database.read { sql in
                try sql.query(each: [SQLStatement("SELECT n FROM items"), SQLStatement("SELECT n FROM no_such_table")])
            }
        }
        #expect(try await database.read { try $0.scalar("SELECT COUNT(*) FROM items", as: Int.self) } == 4, "the connection reads on")
        try await database.close()
        await cleanup()
    }

    /// On PostgreSQL a statement with values is prepared once per connection and run by name
    /// after (parsed and planned once); its placeholders carry the values' types, and a NULL
    /// in place of a value makes a statement of its own.
    @Test func postgreSQLPreparesAStatementOncePerConnectionAndTypes() async throws {
        let (database, cleanup) = try await Self.open(.postgresql)
        let prepared = try await database.write { sql in
            for n in 1...3 { try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", n, "l\(n)") }
            try sql.send("INSERT INTO items (n, label) VALUES (?, ?)", binding: [.integer(4), .null])
            for n in 1...4 { _ = try sql.query("SELECT label FROM items WHERE n = ?", n) }
            return try sql.query("SELECT statement FROM pg_prepared_statements ORDER BY statement").map { try $0.first(as: String.self) }
        }
        #expect(prepared == ["INSERT INTO items (n, label) VALUES ($1::int8, $2)",
                             "INSERT INTO items (n, label) VALUES ($1::int8, $2::text)",
                             "SELECT label FROM items WHERE n = $1::int8"])
        #expect(try await database.read { try $0.query("SELECT label FROM items WHERE n = ?", 4).map { try $0.first(as: String?.self) } } == [nil])
        try await database.close()
        await cleanup()
    }

    @Test(arguments: TestEngine.allCases)
    func valuesRoundTripAndNullsReadAsNil(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        try await database.write { sql in
            try sql.execute("CREATE TABLE kinds (i INTEGER, r REAL, t TEXT, b BLOB, z TEXT)")
            try sql.execute("INSERT INTO kinds VALUES (?, ?, ?, ?, ?)", Int64.max, 2.5, "ünï ✓ '?'", SQLValue.blob([0, 1, 255]), String?.none)
        }
        let row = try #require(try await database.read { try $0.first("SELECT i, r, t, b, z FROM kinds WHERE t LIKE '%?%'") })
        #expect(try row.decode(column: "i", as: Int64.self) == Int64.max)
        #expect(try row.decode(column: "r", as: Double.self) == 2.5)
        #expect(try row.decode(column: "t", as: String.self) == "ünï ✓ '?'")
        #expect(try row.decode(column: "b", as: SQLValue.self) == .blob([0, 1, 255]))
        #expect(try row.decode(column: "z", as: String?.self) == nil)
        #expect(throws: StorageError.self) { try row.decode(column: "z", as: String.self) }
        #expect(throws: StorageError.self) { try row.decode(column: "missing", as: String.self) }
        // Sums and counts read as integers on both (PostgreSQL's SUM of BIGINT is NUMERIC).
        let sums = try #require(try await database.read { try $0.first("SELECT COUNT(*) AS c, SUM(i / 2) AS s, SUM(r) AS f FROM kinds") })
        #expect(try sums.decode(column: "c", as: Int.self) == 1)
        #expect(try sums.decode(column: "s", as: Int64.self) == Int64.max / 2)
        #expect(try sums.decode(column: "f", as: Double.self) == 2.5)
        try await database.close()
        await cleanup()
    }

    @Test(arguments: TestEngine.allCases)
    func aClosedDatabaseRefusesWork(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        try await database.close()
        await #expect(throws: StorageError.self) { try await database.write { try $0.execute("DELETE FROM items") } }
        await #expect(throws: StorageError.self) { try await database.read { try $0.query("SELECT n FROM items") } }
        await #expect(throws: StorageError.self) { try await database.readLatest { try $0.query("SELECT n FROM items") } }
        await cleanup()
    }

    /// `readLatest` (on SQLite run by the writer between its commits): a write's rows are there
    /// once it has returned, a refused one's never, and no read sees half of a transaction —
    /// with 300 writes and 600 reads at once, so reads land between and beside group commits.
    @Test(arguments: TestEngine.allCases)
    func readLatestSeesEveryCommitBeforeItAndNeverHalfOfOne(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        let seen = await withTaskGroup(of: (expected: Int, found: Int?, total: Int?).self) { group in
            for n in 0..<300 {
                group.addTask {
                    var wrote = true
                    do {
                        try await database.write { sql in
                            try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", 2 * n, "first")
                            try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", 2 * n + 1, "second")
                            if n % 5 == 0 { throw Refused(n: n) }
                        }
                    } catch {
                        wrote = false
                    }
                    let found = try? await database.readLatest { try $0.query("SELECT n FROM items WHERE n IN (?, ?)", 2 * n, 2 * n + 1).count }
                    let total = try? await database.readLatest { try $0.scalar("SELECT COUNT(*) FROM items", as: Int.self) }
                    return (wrote ? 2 : 0, found, total)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(seen.count == 300)
        for (expected, found, total) in seen {
            #expect(found == expected)
            #expect(total.map { $0 % 2 == 0 } == true, "a read saw half of a transaction: \(total ?? -1) rows")
        }
        #expect(try await database.readLatest { try $0.scalar("SELECT COUNT(*) FROM items", as: Int.self) } == 240 * 2)
        try await database.close()
        await cleanup()
    }

    /// A database opened read-only has no writer: `readLatest` is answered by its readers.
    @Test func readLatestOnAReadOnlyDatabaseIsAnsweredByItsReaders() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-db-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/test.sqlite"
        let database = try await Database.openSQLite(path: path, logger: Logger(label: "test"))
        try await database.write { sql in
            try sql.execute("CREATE TABLE items (n INTEGER PRIMARY KEY, label TEXT)")
            try sql.execute("INSERT INTO items (n, label) VALUES (1, 'one')")
        }
        try await database.close()
        let readOnly = try await Database.openSQLiteReadOnly(path: path, logger: Logger(label: "test"))
        #expect(try await readOnly.readLatest { try $0.scalar("SELECT label FROM items WHERE n = 1", as: String.self) } == "one")
        try await readOnly.close()
    }

    /// What the event log and the dialogs rely on: a counter moved by an upsert (or
    /// `UPDATE … RETURNING`) hands out every number once, however many transactions run at once.
    @Test(arguments: TestEngine.allCases)
    func aCounterMovedInTheStatementNeverRepeatsANumber(_ engine: TestEngine) async throws {
        let (database, cleanup) = try await Self.open(engine)
        try await database.write { try $0.execute("CREATE TABLE heads (name TEXT PRIMARY KEY, last INTEGER NOT NULL)") }
        let numbers = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await database.write { sql in
                        try sql.scalar("""
                            INSERT INTO heads (name, last) VALUES (?, 1)
                            ON CONFLICT (name) DO UPDATE SET last = heads.last + 1 RETURNING last
                            """, "ann", as: Int64.self) ?? 0
                    }
                }
            }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(numbers.sorted() == Array(1...200))
        try await database.close()
        await cleanup()
    }

    /// Notifications sent together (`notify(_:payloads:)`) reach a listener whole and in their
    /// order, after those sent before them; an empty list sends nothing.
    @Test func notificationsSentTogetherArriveInTheirOrder() async throws {
        let (database, cleanup) = try await Self.open(.postgresql)
        let (heard, hearing) = AsyncStream.makeStream(of: String.self)
        try await database.listen("parley_test_channel") { hearing.yield($0) }
        // Long ones, and text a notification must carry as it is.
        let together = (1...5).map { n in "\(n) " + String(repeating: "é\"\\ ", count: 1_000 + n) }
        try await database.notify("parley_test_channel", payload: "first")
        try await database.notify("parley_test_channel", payloads: [])
        try await database.notify("parley_test_channel", payloads: together)
        try await database.notify("parley_test_channel", payload: "last")
        let expected = ["first"] + together + ["last"]
        let listening = Task {
            var received: [String] = []
            for await payload in heard {
                received.append(payload)
                if received.count == expected.count { break }
            }
            return received
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            listening.cancel()
        }
        let received = await listening.value
        deadline.cancel()
        #expect(received == expected)
        try await database.close()
        await cleanup()
    }
}

import Foundation
import Testing
@testable import ParleyStorage

/// A connection finds its prepared statements by the identity of the string that asks (a store's
/// SQL is a literal or text kept), and by text when that is new; rows find their columns by the
/// identity of a short name, and by hash otherwise. Both must answer exactly as a lookup by text.
@Suite struct StatementCacheTests {
    @Test func aStatementAskedForWithTheSameStringIsFoundByItsIdentity() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        defer { connection.close() }
        try connection.execute(script: "CREATE TABLE items (n INTEGER PRIMARY KEY, label TEXT)")
        let insert = "INSERT INTO items (n, label) VALUES (?, ?)"
        for n in 1...3 { _ = try connection.run(insert, [.integer(Int64(n)), .text("item \(n)")]) }
        #expect(connection.identitiesCached == 1)
        #expect(connection.recompilations(of: insert) == 0)
        let rows = try connection.run("SELECT COUNT(*) AS c FROM items", [])
        #expect(try rows[0].decode(column: "c", as: Int.self) == 3)
        #expect(connection.identitiesCached == 2)
    }

    /// Text built anew for every run is a new string each time: it runs the statement cached by
    /// its text, and the identities it leaves stay bounded.
    @Test func textBuiltForEveryRunFindsItsStatementByTextAndStaysBounded() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        defer { connection.close() }
        try connection.execute(script: "CREATE TABLE items (n INTEGER PRIMARY KEY); INSERT INTO items VALUES (1), (2), (3);")
        for round in 0..<3_000 {
            let sql = "SELECT n FROM items WHERE n IN (\(sqlPlaceholders(2))) ORDER BY n"
            let rows = try connection.run(sql, [.integer(Int64(round % 3 + 1)), .integer(3)])
            #expect(try rows.map { try $0.decode(column: "n", as: Int.self) } == (round % 3 == 2 ? [3] : [round % 3 + 1, 3]))
            #expect(connection.identitiesCached <= 1_024)
            #expect(connection.recompilations(of: sql) == 0, "prepared once, found by its text")
        }
    }

    /// Two texts never share a statement, whatever their strings' storage.
    @Test func differentTextsRunDifferentStatements() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        defer { connection.close() }
        for n in 0..<200 {
            let sql = "SELECT \(n) AS n"
            #expect(try connection.run(sql, [])[0].decode(column: "n", as: Int.self) == n)
            #expect(try connection.run("SELECT \(n) AS n", [])[0].decode(column: "n", as: Int.self) == n)
        }
    }

    @Test func columnsAreFoundByShortAndLongNamesAndTheFirstOfTwoWins() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        defer { connection.close() }
        let long = "a_column_name_longer_than_fifteen_bytes"
        let row = try connection.run("SELECT 1 AS n, 2 AS \(long), 3 AS n, 'é' AS \"naïve\", 4 AS \"ünïcödé_name_of_some_length\"", [])[0]
        #expect(try row.decode(column: "n", as: Int.self) == 1)
        #expect(try row.decode(column: long, as: Int.self) == 2)
        #expect(try row.decode(column: String(long.reversed().reversed()), as: Int.self) == 2, "a long name built at run time")
        #expect(try row.decode(column: "naïve", as: String.self) == "é")
        #expect(try row.decode(column: "ünïcödé_name_of_some_length", as: Int.self) == 4)
        #expect(throws: StorageError.self) { try row.decode(column: "missing", as: Int.self) }
        #expect(throws: StorageError.self) { try row.decode(column: "N", as: Int.self) }
    }
}

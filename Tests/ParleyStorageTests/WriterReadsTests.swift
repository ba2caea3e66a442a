import Foundation
@testable import ParleyStorage
import Testing

/// The reads SQLite's writer answers between its commits (`readLatest`): they see only what is
/// committed and never change the database, whatever state a failure left the connection in.
@Suite struct WriterReadsTests {
    static func connection() throws -> (SQLiteConnection, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-db-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let connection = try SQLiteConnection(path: directory + "/test.sqlite")
        try connection.execute(script: "PRAGMA journal_mode=WAL; CREATE TABLE items (n INTEGER PRIMARY KEY)")
        return (connection, directory)
    }

    static func count(_ connection: SQLiteConnection) -> Int? {
        var counted: Int?
        SQLiteEngine.runReads([ReadJob { counted = try? $0.scalar("SELECT COUNT(*) FROM items", as: Int.self) }], on: connection)
        return counted
    }

    @Test func aTransactionAFailureLeftOpenIsNeitherReadNorKept() throws {
        let (connection, directory) = try Self.connection()
        defer { connection.close(); try? FileManager.default.removeItem(atPath: directory) }
        _ = try connection.run("INSERT INTO items (n) VALUES (1)", [])
        _ = try connection.run("BEGIN IMMEDIATE", [])
        _ = try connection.run("INSERT INTO items (n) VALUES (2)", [])   // a batch whose callers were told it failed
        #expect(Self.count(connection) == 1)
        #expect(connection.isAutocommit)
        #expect(Self.count(connection) == 1, "the row of the abandoned transaction was not committed")
    }

    @Test func aSnapshotOnTheWriterCannotWrite() throws {
        let (connection, directory) = try Self.connection()
        defer { connection.close(); try? FileManager.default.removeItem(atPath: directory) }
        var refused = false
        SQLiteEngine.runReads([ReadJob { snapshot in
            refused = (try? snapshot.query("INSERT INTO items (n) VALUES (7) RETURNING n")) == nil
        }], on: connection)
        #expect(refused)
        #expect(Self.count(connection) == 0)
        _ = try connection.run("INSERT INTO items (n) VALUES (8)", [])   // and writes work again after
        #expect(Self.count(connection) == 1)
    }

    @Test func aSnapshotOnTheWriterRefusesEveryKindOfChange() throws {
        let (connection, directory) = try Self.connection()
        defer { connection.close(); try? FileManager.default.removeItem(atPath: directory) }
        _ = try connection.run("INSERT INTO items (n) VALUES (1)", [])
        var refusals: [Bool] = []
        SQLiteEngine.runReads([ReadJob { snapshot in
            for sql in ["UPDATE items SET n = 2", "DELETE FROM items", "CREATE TABLE other (x)", "BEGIN IMMEDIATE"] {
                refusals.append((try? snapshot.query(sql)) == nil)
            }
            refusals.append((try? snapshot.query("SELECT n FROM items")) == nil)   // a read is not refused
        }], on: connection)
        #expect(refusals == [true, true, true, true, false])
        #expect(try connection.run("SELECT n FROM items", []).count == 1)
    }

    @Test func aRoundOfReadsCompilesNoStatementAgain() throws {
        let (connection, directory) = try Self.connection()
        defer { connection.close(); try? FileManager.default.removeItem(atPath: directory) }
        let insert = "INSERT INTO items (n) VALUES (?)"
        _ = try connection.run(insert, [.integer(1)])
        for n in 2...4 {
            #expect(Self.count(connection) == n - 1)
            _ = try connection.run(insert, [.integer(Int64(n))])
        }
        #expect(connection.recompilations(of: insert) == 0)
        #expect(connection.recompilations(of: "SELECT COUNT(*) FROM items") == 0)
    }
}

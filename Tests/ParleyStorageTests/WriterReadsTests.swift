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
}

import Foundation
import Logging
import ParleyTestSupport
import Testing
@testable import ParleyStorage

/// SQLite's checkpoints run on a connection of their own, never in the writer's commits: what is
/// committed reaches the database file within a second while writes go on, and the WAL does not
/// grow without end.
@Suite struct CheckpointTests {
    @Test func committedPagesReachTheDatabaseFileWhileItStaysOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ckpt-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/test.sqlite"
        let database = try await Database.openSQLite(path: path, logger: Logger(label: "test"))
        try await database.write { try $0.execute("CREATE TABLE items (n INTEGER PRIMARY KEY, label TEXT)") }
        let before = Self.size(path)
        let filler = String(repeating: "x", count: 2_000)
        for batch in 0..<20 {
            try await database.write { sql in
                for n in 0..<100 { try sql.execute("INSERT INTO items (n, label) VALUES (?, ?)", batch * 100 + n, filler) }
            }
        }
        // 2 000 rows of 2 kB: ~4 MB committed, all of it in the WAL until a checkpoint copies it.
        let deadline = ContinuousClock.now + .seconds(5)
        while Self.size(path) < before + 3_000_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(Self.size(path) >= before + 3_000_000, "the database file holds what was committed")
        // Once all of it is copied, the next write starts the WAL over instead of appending.
        try await Task.sleep(for: .seconds(1))
        try await database.write { try $0.execute("INSERT INTO items (n, label) VALUES (?, ?)", 99_999, "last") }
        let wal = Self.size(path + "-wal")
        #expect(wal < 5_000_000, "WAL \(wal) bytes")
        let count = try await database.read { try $0.query("SELECT COUNT(*) AS c FROM items")[0].decode(column: "c", as: Int.self) }
        #expect(count == 2_001)
        try await database.close()
    }

    /// The checkpointer syncs the database file after each copy (through the connection's own
    /// file, so through Parley's VFS); a database with no file of its own says so.
    @Test func theDatabaseFileSyncsThroughItsConnection() throws {
        let directory = try makeTemporaryDirectory(prefix: "parley-sync").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let connection = try SQLiteConnection(path: directory + "/test.sqlite")
        defer { connection.close() }
        try connection.execute(script: "PRAGMA journal_mode=WAL; CREATE TABLE items (n INTEGER PRIMARY KEY); INSERT INTO items VALUES (1);")
        _ = try connection.run("PRAGMA wal_checkpoint(PASSIVE)", [])
        try connection.syncDatabaseFile()

        let memory = try SQLiteConnection(path: ":memory:")
        defer { memory.close() }
        #expect(throws: SQLiteError.self) { try memory.syncDatabaseFile() }
    }

    /// The writer's own checkpoint: due at the mark, made right after a checkpointer pass (or
    /// whenever, a quarter past due), tried again only after `retryPages` more when the WAL did not
    /// start over, and due a whole mark later once it has.
    @Test func theWritersCheckpointComesAfterAPassOrAQuarterPastDue() {
        var schedule = WriterCheckpointSchedule(pages: 1_000, retryPages: 100)
        // Each step: the WAL's frames, whether a pass has just ended, and the answer wanted.
        let steps: [(frames: Int, pass: Bool, now: Bool)] = [
            (999, true, false),     // not due yet
            (1_000, false, false),  // due, but no pass has just ended
            (1_249, false, false),
            (1_250, false, true),   // a quarter past due: whenever
        ]
        for step in steps {
            #expect(schedule.checkpointNow(frames: step.frames, passJustEnded: step.pass) == step.now, "\(step)")
        }

        var waiting = WriterCheckpointSchedule(pages: 1_000, retryPages: 100)
        let more: [(frames: Int, pass: Bool, now: Bool)] = [
            (1_010, true, true),    // due, right after a pass
            (1_050, true, false),   // it could not finish and the WAL grows on: not after every batch
            (1_109, true, false),
            (1_110, true, true),    // again, retryPages later
            (20, true, false),      // it finished: the WAL started over
            (1_019, true, false),   // due a whole mark after where it started
            (1_020, true, true),
        ]
        for step in more {
            #expect(waiting.checkpointNow(frames: step.frames, passJustEnded: step.pass) == step.now, "\(step)")
        }
    }

    /// The writer's checkpoint is told in the log when it could not copy the whole WAL, or held
    /// writes 100 ms or more — at most once a minute, with how many more there were.
    @Test func theWritersCheckpointIsToldWhenItLeftTheWALOrHeldWritesLong() {
        typealias Outcome = WriterCheckpointReport.Outcome
        let second: UInt64 = 1_000_000_000
        var report = WriterCheckpointReport()
        #expect(report.line(for: Outcome(busy: 0, frames: 131_100, copied: 131_100, milliseconds: 27), now: 1 * second) == nil)
        #expect(report.line(for: Outcome(busy: 0, frames: 131_100, copied: 120_000, milliseconds: 9), now: 2 * second)
            == "the SQLite writer's checkpoint copied 120000 of 131100 WAL frames; the WAL grows until the next")
        #expect(report.line(for: Outcome(busy: 1, frames: -1, copied: -1, milliseconds: 0), now: 3 * second) == nil)
        #expect(report.line(for: Outcome(busy: 0, frames: 9, copied: 9, milliseconds: 140), now: 61 * second) == nil)
        #expect(report.line(for: Outcome(busy: 0, frames: 9, copied: 9, milliseconds: 140), now: 62 * second)
            == "the SQLite writer's checkpoint held writes for 140 ms (2 more since the last notice)")
        #expect(report.line(for: Outcome(busy: 1, frames: 140_000, copied: 0, milliseconds: 1), now: 123 * second)
            == "the SQLite writer's checkpoint copied 0 of 140000 WAL frames (busy); the WAL grows until the next")
        #expect(report.line(for: Outcome(busy: 1, frames: -1, copied: -1, milliseconds: 0), now: 190 * second)
            == "the SQLite writer's checkpoint met another under way; the WAL grows until the next")
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}

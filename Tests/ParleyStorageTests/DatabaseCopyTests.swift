import Foundation
import Logging
@testable import ParleyStorage
import ParleyTestSupport
import Testing

/// `DatabaseCopy` from a real SQLite file into a database of its own on the test PostgreSQL: every
/// value as it was (integers to the edges of 64 bits, text with quotes and emoji, every byte
/// value in a blob, NULLs, reals), tables in foreign-key order, pages that end mid-table, a
/// `WITHOUT ROWID` table paged by its composite key, SQLite's full-text tables left behind, the
/// identity sequence past the copied ids; and the refusals: a target with data, a source from
/// another version, a column one side lacks, a value PostgreSQL cannot hold.
@Suite struct DatabaseCopyTests {
    static let logger = Logger(label: "test")

    /// A schema shaped like Parley's: a parent, a child numbered by the database with an FTS5
    /// index on SQLite (as quotes), a composite-key table without rowid, a later column, and a
    /// table whose name sorts before the parent it references.
    static let steps: [Migration] = [
        Migration("copy.1") { sql in
            try sql.execute(#"CREATE TABLE "owners" ("id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "avatar" BLOB, "score" REAL, "created_at" INTEGER NOT NULL)"#)
            try sql.execute(#"CREATE TABLE "notes" ("seq" INTEGER PRIMARY KEY, "owner_id" TEXT NOT NULL REFERENCES "owners" ("id") ON DELETE CASCADE, "body" TEXT, "data" BLOB)"#)
            try sql.execute(#"CREATE TABLE "tags" ("owner_id" TEXT NOT NULL REFERENCES "owners" ("id") ON DELETE CASCADE, "tag" TEXT NOT NULL, PRIMARY KEY ("owner_id", "tag")) WITHOUT ROWID"#)
            try sql.execute(#"CREATE TABLE "a_links" ("note_seq" INTEGER NOT NULL REFERENCES "notes" ("seq") ON DELETE CASCADE, "tag_owner" TEXT NOT NULL, PRIMARY KEY ("note_seq", "tag_owner"))"#)
            guard sql.kind == .sqlite else { return }
            try sql.execute(script: """
                CREATE VIRTUAL TABLE notes_search USING fts5(body, content='notes', content_rowid='seq', tokenize='trigram');
                CREATE TRIGGER notes_search_insert AFTER INSERT ON notes BEGIN
                  INSERT INTO notes_search (rowid, body) VALUES (new.seq, new.body);
                END;
                """)
        },
        Migration("copy.2") { sql in
            try sql.execute(#"ALTER TABLE "owners" ADD COLUMN "nickname" TEXT"#)
        },
    ]

    static let everyByte: [UInt8] = (0...255).map(UInt8.init) + [0, 0, 255]

    /// An SQLite file with `steps` applied and rows in every table; its path and folder.
    static func source(steps: [Migration] = steps, notes: Int = 5000) async throws -> (path: String, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-copy-\(UUID().uuidString)").path
        let path = folder + "/parley.sqlite"
        let database = try await Database.openSQLite(path: path, logger: logger)
        try await Migrator(database: database, logger: logger).run(steps, now: 1_795_348_800_000)
        try await database.write { sql in
            try sql.execute(#"INSERT INTO owners (id, name, avatar, score, created_at) VALUES (?, ?, ?, ?, ?)"#,
                            "o-1", #"Ann "the 'first'" Lee 🦊"#, SQLValue.blob(everyByte), 2.5, Int64.max)
            try sql.execute(#"INSERT INTO owners (id, name, avatar, score, created_at) VALUES (?, ?, NULL, NULL, ?)"#,
                            "o-2", "Bo", Int64.min)
            for n in 1...notes {
                // Even numbers given, every tenth row numbered by SQLite (the largest yet + 1).
                let seq = n % 10 == 0 ? nil : Int64(n * 2)
                try sql.execute("INSERT INTO notes (seq, owner_id, body, data) VALUES (?, ?, ?, ?)",
                                seq, n % 2 == 0 ? "o-1" : "o-2", (n % 7 == 0 ? nil : "note \(n) — ünïcode") as String?,
                                n % 3 == 0 ? SQLValue.blob([UInt8(n % 256), 0, 1]) : SQLValue.null)
            }
            for n in 0..<1500 {
                try sql.execute("INSERT INTO tags (owner_id, tag) VALUES (?, ?)", n % 2 == 0 ? "o-1" : "o-2", "tag \(n)")
            }
            try sql.execute("INSERT INTO a_links (note_seq, tag_owner) SELECT seq, owner_id FROM notes WHERE seq % 5 = 0")
        }
        try await database.close()
        return (path, folder)
    }

    /// Every row of `table` ordered by `order`, as values.
    static func rows(_ database: Database, _ table: String, order: String) async throws -> [[SQLValue]] {
        try await database.read { sql in try sql.query(#"SELECT * FROM "\#(table)" ORDER BY \#(order)"#).map(\.values) }
    }

    static func target() async throws -> (Database, String) {
        let url = try await TestPostgreSQL.freshDatabase()
        return (try await Database.openPostgreSQL(url: PostgreSQLURL(url), logger: logger), url)
    }

    @Test func everyTableAndValueArrivesInOrderAndTheSequenceGoesOnPastTheCopiedIds() async throws {
        let (path, folder) = try await Self.source()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try await Database.openSQLiteReadOnly(path: path, logger: Self.logger)
        let (target, url) = try await Self.target()

        var copy = DatabaseCopy(from: source, to: target, migrations: Self.steps, logger: Self.logger)
        copy.batchRows = 700   // 5000 notes: seven full pages and a short one
        var heard: [String] = []
        let report = try await copy.run(now: 1) { table, rows in heard.append("\(table) \(rows)") }

        // Parents first: a_links sorts first by name but waits for notes, which waits for owners.
        #expect(heard == ["owners 2", "notes 5000", "a_links 500", "tags 1500"])
        #expect(report.tables.map(\.name) == ["owners", "notes", "a_links", "tags"])
        #expect(report.tables.allSatisfy { $0.sqliteRows == $0.postgreSQLRows })
        #expect(report.rows == 7002)
        #expect(report.skipped.map(\.name).contains("notes_search"))
        #expect(report.skipped.map(\.name).contains("notes_search_data"))   // FTS5's shadow tables
        #expect(report.skipped.map(\.name).contains("parley_migrations"))
        #expect(report.sequences == ["notes.seq"])

        for (table, order) in [("owners", "id"), ("notes", "seq"), ("a_links", "note_seq"), ("tags", "owner_id, tag")] {
            let before = try await Self.rows(source, table, order: order)
            let after = try await Self.rows(target, table, order: order)
            #expect(before.count == after.count, "\(table)")
            let differing = zip(before, after).first { $0.0 != $0.1 }
            #expect(before == after, "\(table): the first row that differs: \(String(describing: differing))")
        }
        // The blob's every byte, the 64-bit edges and the real, read back through the target.
        let ann = try #require(try await target.read { try $0.first("SELECT * FROM owners WHERE id = 'o-1'") })
        #expect(try ann.decode(column: "avatar", as: SQLValue.self) == .blob(Self.everyByte))
        #expect(try ann.decode(column: "created_at", as: Int64.self) == Int64.max)
        #expect(try ann.decode(column: "score", as: Double.self) == 2.5)
        #expect(try ann.decode(column: "nickname", as: String?.self) == nil)

        // The next note PostgreSQL numbers comes after the largest copied one, not at 1.
        let largest = try #require(try await source.read { try $0.scalar("SELECT MAX(seq) FROM notes", as: Int64.self) })
        let next = try await target.write { try $0.scalar("INSERT INTO notes (owner_id, body) VALUES ('o-1', 'new') RETURNING seq", as: Int64.self) }
        #expect(next == largest + 1)
        // The target's own migrations are recorded there; the source was never written to.
        #expect(try await Migrator(database: target, logger: Self.logger).pending(Self.steps).isEmpty)
        await #expect(throws: StorageError.self) { try await source.write { try $0.execute("DELETE FROM tags") } }

        // Once more into the same database: refused, nothing added.
        await #expect(throws: CopyError.targetNotEmpty(table: "owners", rows: 2)) {
            try await DatabaseCopy(from: source, to: target, migrations: Self.steps, logger: Self.logger).run(now: 1)
        }
        #expect(try await target.read { try $0.scalar("SELECT COUNT(*) FROM notes", as: Int.self) } == 5001)

        try await source.close()
        try await target.close()
        await TestPostgreSQL.drop(url)
    }

    @Test func aSourceFromAnotherVersionIsRefusedBeforeTheTargetIsTouched() async throws {
        let (path, folder) = try await Self.source(steps: [Self.steps[0]], notes: 10)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try await Database.openSQLiteReadOnly(path: path, logger: Self.logger)
        let (target, url) = try await Self.target()
        await #expect(throws: CopyError.sourceBehind(["copy.2"])) {
            try await DatabaseCopy(from: source, to: target, migrations: Self.steps, logger: Self.logger).run(now: 1)
        }
        await #expect(throws: CopyError.sourceAhead(["copy.1"])) {
            try await DatabaseCopy(from: source, to: target, migrations: [], logger: Self.logger).run(now: 1)
        }
        let tables = try await target.read { try $0.scalar("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()", as: Int.self) }
        #expect(tables == 0)
        try await source.close()
        try await target.close()
        await TestPostgreSQL.drop(url)
    }

    @Test func aColumnOnlyOneSideHasIsNamed() async throws {
        let (path, folder) = try await Self.source(notes: 10)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A column added by hand on the SQLite file, outside any migration.
        let writable = try await Database.openSQLite(path: path, logger: Self.logger)
        try await writable.write { try $0.execute(#"ALTER TABLE "tags" ADD COLUMN "colour" TEXT"#) }
        try await writable.close()
        let source = try await Database.openSQLiteReadOnly(path: path, logger: Self.logger)
        let (target, url) = try await Self.target()
        await #expect(throws: CopyError.schemaMismatch(["column tags.colour: in the SQLite database, not in PostgreSQL"])) {
            try await DatabaseCopy(from: source, to: target, migrations: Self.steps, logger: Self.logger).run(now: 1)
        }
        try await source.close()
        try await target.close()
        await TestPostgreSQL.drop(url)
    }

    @Test func aValuePostgreSQLCannotHoldStopsTheCopyNamingIt() async throws {
        let (path, folder) = try await Self.source(notes: 10)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // SQLite keeps text that is not a number in an INTEGER column; PostgreSQL's bigint cannot.
        let writable = try await Database.openSQLite(path: path, logger: Self.logger)
        try await writable.write { try $0.execute("UPDATE owners SET created_at = 'yesterday' WHERE id = 'o-2'") }
        try await writable.close()
        let source = try await Database.openSQLiteReadOnly(path: path, logger: Self.logger)
        let (target, url) = try await Self.target()
        await #expect(throws: CopyError.badValue(table: "owners", column: "created_at", value: "the text \"yesterday\"", type: "integer")) {
            try await DatabaseCopy(from: source, to: target, migrations: Self.steps, logger: Self.logger).run(now: 1)
        }
        try await source.close()
        try await target.close()
        await TestPostgreSQL.drop(url)
    }

    @Test func noFileIsNoDatabase() async throws {
        await #expect(throws: StorageError.self) {
            try await Database.openSQLiteReadOnly(path: "/nonexistent/parley.sqlite", logger: Self.logger)
        }
    }

    @Test func valuesTakeTheTargetColumnsTypeOrAreRefused() {
        #expect(CopyColumnType.text.convert(.integer(42)) == .text("42"))
        #expect(CopyColumnType.integer.convert(.text("42")) == .integer(42))
        #expect(CopyColumnType.integer.convert(.real(3)) == .integer(3))
        #expect(CopyColumnType.integer.convert(.real(3.5)) == nil)
        #expect(CopyColumnType.blob.convert(.text("hi")) == .blob([104, 105]))
        #expect(CopyColumnType.text.convert(.text("a\u{0}b")) == nil)   // PostgreSQL text holds no NUL
        #expect(CopyColumnType.text.convert(.null) == .null)
        #expect(CopyColumnType(postgreSQL: "bigint") == .integer)
        #expect(CopyColumnType(postgreSQL: "bytea") == .blob)
    }

    @Test func tablesWhoseKeysPointInACircleCannotBeOrdered() throws {
        let a = CopyTable(name: "a", columns: ["id"], primaryKey: ["id"], hasRowID: true, parents: ["b"])
        let b = CopyTable(name: "b", columns: ["id"], primaryKey: ["id"], hasRowID: true, parents: ["a"])
        #expect(throws: CopyError.foreignKeyCycle(["a", "b"])) { try CopyPlan.ordered([a, b]) }
        let c = CopyTable(name: "c", columns: ["id"], primaryKey: ["id"], hasRowID: true, parents: ["c", "elsewhere"])
        #expect(try CopyPlan.ordered([c]).map(\.name) == ["c"])
    }
}

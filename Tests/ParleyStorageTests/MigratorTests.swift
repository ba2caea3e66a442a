import Foundation
import Logging
import ParleyStorage
import ParleyTestSupport
import Testing

/// Several nodes starting at once on one PostgreSQL: each migration runs once, whichever node
/// takes the advisory lock first, and every node finds the schema complete when `run` returns.
@Suite struct MigratorTests {
    static let steps: [Migration] = (1...6).map { number in
        Migration("test.\(number)") { sql in
            // A step that is not idempotent: run twice, it would fail on the table it made.
            try sql.execute("CREATE TABLE step_\(number) (id TEXT PRIMARY KEY)")
            try sql.execute("INSERT INTO applied (step) VALUES (?)", number)
        }
    }

    @Test func nodesStartingTogetherApplyEachStepOnce() async throws {
        let url = try await TestPostgreSQL.freshDatabase(pool: 2)
        let logger = Logger(label: "test")
        let setup = try await Database.openPostgreSQL(url: PostgreSQLURL(url), logger: logger)
        try await setup.write { try $0.execute("CREATE TABLE applied (step INTEGER NOT NULL)") }
        let nodes = try await withThrowingTaskGroup(of: Database.self) { group in
            for _ in 0..<4 { group.addTask { try await Database.openPostgreSQL(url: PostgreSQLURL(url), logger: logger) } }
            return try await group.reduce(into: [Database]()) { $0.append($1) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes {
                group.addTask {
                    let migrator = Migrator(database: node, logger: logger)
                    try await migrator.run(Self.steps, now: 1)
                    // When run returns, this node sees every step, whoever applied it.
                    #expect(try await migrator.pending(Self.steps).isEmpty)
                }
            }
            try await group.waitForAll()
        }
        let applied = try await setup.read { sql in
            try sql.query("SELECT step FROM applied ORDER BY step").map { try $0.decode(column: "step", as: Int.self) }
        }
        #expect(applied == Array(1...6))
        for node in nodes { try await node.close() }
        try await setup.close()
        await TestPostgreSQL.drop(url)
    }
}

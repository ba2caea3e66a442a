import Foundation
import ParleyApp
import ParleyStorage
import ParleyTestSupport
import Testing

/// On PostgreSQL the login, sign-up and code limits are rows in `rate_events`; a key that never
/// acts again would keep its rows for ever, so the node prunes what no window counts any more.
@Suite struct RateEventsPruneTests {
    static func keys(_ database: Database) async throws -> [String] {
        try await database.read { sql in
            try sql.query("SELECT key FROM rate_events ORDER BY key").map { try $0.decode(column: "key", as: String.self) }
        }
    }

    /// A number texted once an hour and a minute ago (and the address that asked) is forgotten
    /// by the running node's own prune; one texted just now, and its address, stay counted.
    @Test func theNodeForgetsIdleKeysPastTheLongestWindowAndKeepsRecentOnes() async throws {
        let url = try await TestPostgreSQL.freshDatabase()
        let parley = try await TestParley.start {
            $0.databaseURL = url
            $0.jwtSecret = String(repeating: "5eed", count: 16)
            $0.adminToken = String(repeating: "ad", count: 16)
        }
        let pruner = try #require(parley.parts.rateEvents, "a node on PostgreSQL prunes the shared rate counts")
        #expect(pruner.keep == 3600, "the longest window in use: sign-ups and texted codes, an hour")

        _ = try await parley.parts.accounts.requestPhoneCode(phoneNumber: "+14155550101", clientAddress: "203.0.113.7")
        parley.clock.advance(by: pruner.keep + 60)
        _ = try await parley.parts.accounts.requestPhoneCode(phoneNumber: "+14155550102", clientAddress: "203.0.113.8")
        // "all": the codes texted from everywhere together (the first one's row went as that key
        // acted again past its window).
        let recent = ["address:203.0.113.8", "all", "number:+14155550102"]
        let counted = try await Self.keys(parley.parts.database)
        #expect(counted == ["address:203.0.113.7", "address:203.0.113.8", "all", "number:+14155550101", "number:+14155550102"],
                "\(counted)")

        // The server's service group runs the prune when it starts, and every minute after.
        try await parley.test(.live) { _ in
            var left: [String] = []
            for _ in 0..<50 {
                left = try await Self.keys(parley.parts.database)
                if left == recent { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(left == recent, "idle keys' rows gone, recent ones kept")
            // Nothing else is old enough to go.
            #expect(try await pruner.prune() == 0)
        }
        await TestPostgreSQL.drop(url)
    }
}

import Foundation
import Logging
import ParleyAccounts
import ParleyCore
import ParleyStorage
import Testing

/// User search answers the same pages in name order whichever plan a query takes: the trigram
/// index's matches sorted (a rare fragment), or the name index walked in order (a common one).
@Suite struct UserSearchPlanTests {
    static let names = [
        "Anna Berg", "Joanna Lee", "Hannah Ova", "Ann Kim", "Dana Annick", "Bo Park", "Cy Tran", "Mara Ovanes",
        "Susanne Ry", "Johann Six", "Leanne Ortiz", "Nils Ann", "Pia Dove", "Ravi Novak", "Ivana Annala", "Zoe Zann",
    ]

    static func open() async throws -> (Database, String, [UserID]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-search-\(UUID().uuidString)").path
        let database = try await Database.openSQLite(path: directory + "/test.sqlite", logger: Logger(label: "test"))
        try await Migrator(database: database, logger: Logger(label: "test")).run(AccountMigrations.all, now: 0)
        let store = SQLAccountStore(database: database)
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var ids: [UserID] = []
        for (index, name) in names.enumerated() {
            let id = UserID(rawValue: String(format: "u%03d", index))
            ids.append(id)
            try await store.insertUser(UserRecord(
                id: id, email: "person\(index)@annex.test", name: name, status: "", passwordHash: "x", dateOfBirth: "1990-01-01",
                avatarHash: nil, emailVerifiedAt: index == 5 ? nil : now, createdAt: now, updatedAt: now))
        }
        return (database, directory, ids)
    }

    /// Every page of `query`, two rows at a time, following the cursor.
    static func pages(_ store: SQLAccountStore, _ query: String, viewer: UserID) async throws -> [String] {
        var names: [String] = [], cursor: UserSearchCursor?
        while true {
            let page = try await store.searchUsers(query: query, viewer: viewer, excluding: [], after: cursor, limit: 2)
            names += page.map(\.name)
            guard page.count == 2, let last = page.last else { return names }
            cursor = UserSearchCursor(nameKey: SQLAccountStore.nameKey(last.name), id: last.id)
        }
    }

    @Test func bothPlansAnswerTheSamePagesInNameOrder() async throws {
        let (database, directory, ids) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sorted = SQLAccountStore(database: database, sortedMatchLimit: 1_000)
        let walked = SQLAccountStore(database: database, sortedMatchLimit: 1)
        // A stretch of the name index too short to fill a page: the walk gives way to the sort.
        let short = SQLAccountStore(database: database, sortedMatchLimit: 1, walkRows: 3)
        let viewer = ids[6]   // Cy Tran
        let expected = Self.names.filter { $0.lowercased().contains("ann") }.sorted { $0.lowercased() < $1.lowercased() }
        #expect(expected.count == 11)
        #expect(try await Self.pages(sorted, "ann", viewer: viewer) == expected)
        #expect(try await Self.pages(walked, "ann", viewer: viewer) == expected)
        #expect(try await Self.pages(walked, "ANN", viewer: viewer) == expected)
        #expect(try await Self.pages(short, "ann", viewer: viewer) == expected)
        #expect(try await Self.pages(walked, "an", viewer: viewer) == Self.pages(short, "an", viewer: viewer))
        #expect(try await Self.pages(short, "an", viewer: viewer) == Self.names.filter { $0.lowercased().contains("an") }
            .sorted { $0.lowercased() < $1.lowercased() }.filter { $0 != "Cy Tran" })
        // The viewer and unverified accounts are never found; a part of an address never matches.
        #expect(try await Self.pages(walked, "tran", viewer: viewer).isEmpty)
        #expect(try await Self.pages(sorted, "bo p", viewer: ids[0]).isEmpty)
        for store in [sorted, walked, short] {
            #expect(try await Self.pages(store, "annex", viewer: viewer).isEmpty)
            #expect(try await Self.pages(store, "person3@annex.test", viewer: viewer) == ["Ann Kim"])
            #expect(try await Self.pages(store, "ova", viewer: viewer) == ["Hannah Ova", "Mara Ovanes", "Ravi Novak"])
        }
        // A LIKE wildcard typed by someone is a character, not a pattern.
        #expect(try await Self.pages(walked, "a%n", viewer: viewer).isEmpty)
        try await database.close()
    }
}

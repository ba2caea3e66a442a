import Foundation
import Logging
import ParleyAccounts
import ParleyCore
import ParleyStorage
import Testing

/// User search on SQLite reads its pages in name order from indexes (accounts.8's trigram entries,
/// the name index for two letters): every page here is checked against the names filtered and
/// sorted by hand, page by page across the cursor.
@Suite struct UserSearchPlanTests {
    static let names = [
        "Anna Berg", "Joanna Lee", "Hannah Ova", "Ann Kim", "Dana Annick", "Bo Park", "Cy Tran", "Mara Ovanes",
        "Susanne Ry", "Johann Six", "Leanne Ortiz", "Nils Ann", "Pia Dove", "Ravi Novak", "Ivana Annala", "Zoe Zann",
        "Anton Ek", "Zoë Ångström", "Bo Anker",
    ]
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func open(migrations: [Migration] = AccountMigrations.all) async throws -> (Database, String, [UserID]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-search-\(UUID().uuidString)").path
        let database = try await Database.openSQLite(path: directory + "/test.sqlite", logger: Logger(label: "test"))
        try await Migrator(database: database, logger: Logger(label: "test")).run(migrations, now: 0)
        let store = SQLAccountStore(database: database)
        var ids: [UserID] = []
        for (index, name) in names.enumerated() {
            let id = UserID(rawValue: String(format: "u%03d", index))
            ids.append(id)
            try await store.insertUser(user(id, name, index: index))
        }
        return (database, directory, ids)
    }

    static func user(_ id: UserID, _ name: String, index: Int, verified: Bool? = nil) -> UserRecord {
        UserRecord(
            id: id, email: "person\(index)@annex.test", name: name, status: "", passwordHash: "x", dateOfBirth: "1990-01-01",
            avatarHash: nil, emailVerifiedAt: verified ?? (index != 5) ? now : nil, createdAt: now, updatedAt: now)
    }

    /// Every page of `query`, `limit` rows at a time, following the cursor.
    static func pages(
        _ store: SQLAccountStore, _ query: String, viewer: UserID, hidden: Set<UserID> = [], limit: Int = 2
    ) async throws -> [String] {
        var names: [String] = [], cursor: UserSearchCursor?
        for _ in 0..<1_000 {
            let page = try await store.searchUsers(query: query, viewer: viewer, excluding: hidden, after: cursor, limit: limit)
            #expect(page.count <= limit)
            names += page.map(\.name)
            guard page.count == limit, let last = page.last else { return names }
            cursor = UserSearchCursor(nameKey: SQLAccountStore.nameKey(last.name), id: last.id)
        }
        Issue.record("\(query): the pages do not end")
        return names
    }

    /// What a search must answer, worked out by hand: in name order (bytes of the key, then id).
    static func expected(_ names: [String], _ matches: (String) -> Bool) -> [String] {
        names.filter { matches($0.lowercased()) }.sorted { Array($0.lowercased().utf8).lexicographicallyPrecedes(Array($1.lowercased().utf8)) }
    }

    @Test func partsOfNamesPageInNameOrder() async throws {
        let (database, directory, ids) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SQLAccountStore(database: database)
        let viewer = ids[6]   // Cy Tran
        let others = Self.names.enumerated().filter { $0.offset != 5 && $0.offset != 6 }.map(\.element)
        for query in ["ann", "ANN", "ova", "anna", "nn", "a k", "ångs", "zoë", "an ek"] {
            let key = query.lowercased()
            let wanted = key.count < 3
                ? Self.expected(others) { $0.hasPrefix(key) || $0.contains(" " + key) }
                : Self.expected(others) { $0.contains(key) }
            for limit in [1, 2, 5, 50] {
                #expect(try await Self.pages(store, query, viewer: viewer, limit: limit) == wanted, "\(query), \(limit) a page")
            }
        }
        #expect(Self.expected(others) { $0.contains("ann") }.count == 11)
        // The viewer and unverified accounts are never found; a part of an address never matches,
        // the whole of one does; the hidden (those who blocked the viewer) are left out.
        #expect(try await Self.pages(store, "tran", viewer: viewer).isEmpty)
        #expect(try await Self.pages(store, "bo p", viewer: ids[0]).isEmpty)
        #expect(try await Self.pages(store, "annex", viewer: viewer).isEmpty)
        #expect(try await Self.pages(store, "person3@annex.test", viewer: viewer) == ["Ann Kim"])
        #expect(try await Self.pages(store, "ova", viewer: viewer) == ["Hannah Ova", "Mara Ovanes", "Ravi Novak"])
        #expect(try await Self.pages(store, "ann", viewer: viewer, hidden: [ids[0], ids[3]])
            == Self.expected(others) { $0.contains("ann") }.filter { $0 != "Anna Berg" && $0 != "Ann Kim" })
        // A LIKE wildcard typed by someone is a character, not a pattern.
        #expect(try await Self.pages(store, "a%n", viewer: viewer).isEmpty)
        #expect(try await Self.pages(store, "a_n", viewer: viewer).isEmpty)
        try await database.close()
    }

    /// Two characters (shorter than a trigram): the names that start with them, or have a word
    /// that does — not every name that holds them.
    @Test func twoLettersFindNamesAndWordsThatStartWithThem() async throws {
        let (database, directory, ids) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SQLAccountStore(database: database)
        let found = try await Self.pages(store, "an", viewer: ids[6])
        #expect(found == ["Ann Kim", "Anna Berg", "Anton Ek", "Bo Anker", "Dana Annick", "Ivana Annala", "Nils Ann"])
        #expect(!found.contains("Joanna Lee"), "an inside a word is not a start")
        #expect(try await Self.pages(store, "Bo", viewer: ids[6]) == ["Bo Anker"], "Bo Park is not verified")
        #expect(try await Self.pages(store, "zo", viewer: ids[6], limit: 1) == ["Zoe Zann", "Zoë Ångström"])
        #expect(try await Self.pages(store, "zö", viewer: ids[6]).isEmpty)
        #expect(try await Self.pages(store, "ån", viewer: ids[6]) == ["Zoë Ångström"])
        try await database.close()
    }

    /// A fragment whose matches sort together far from the start (every "Zoe …"), more of them
    /// than a page, among many names that do not match: pages across the cursor, in order.
    @Test func aBunchedFragmentPagesAcrossTheCursor() async throws {
        let (database, directory, ids) = try await Self.open()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SQLAccountStore(database: database)
        var all = Self.names
        let syllables = ["ka", "ri", "mo", "len", "sa", "to", "ova", "ann", "berg"]
        for index in 0..<600 {
            let first = ["Zoe", "Anna", "Bo", "Mia", "Zoey"][index % 5]
            let name = "\(first) \(syllables[index % 9].capitalized)\(syllables[(index / 9) % 9])"
            all.append(name)
            try await store.insertUser(Self.user(UserID(rawValue: String(format: "z%04d", 599 - index)), name, index: 100 + index, verified: true))
        }
        let others = all.enumerated().filter { $0.offset != 5 && $0.offset != 6 }.map(\.element)
        for query in ["zoe", "oe r", "zoey mo", "ann", "mia k", "a be"] {
            let wanted = Self.expected(others) { $0.contains(query) }
            #expect(wanted.count > 1, "\(query)")
            #expect(try await Self.pages(store, query, viewer: ids[6], limit: 7) == wanted, "\(query)")
        }
        // Same names, different ids: the id decides, and the cursor stops between them.
        let twins = try await Self.pages(store, "zoe kaka", viewer: ids[6], limit: 1)
        #expect(twins == Self.expected(others) { $0.contains("zoe kaka") } && twins.count >= 2)
        try await database.close()
    }

    /// Renamed and deleted users leave the index; a database from before accounts.8 gets its
    /// users indexed when it migrates.
    @Test func theIndexFollowsTheUsers() async throws {
        let (database, directory, ids) = try await Self.open(migrations: Array(AccountMigrations.all.prefix(7)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Migrator(database: database, logger: Logger(label: "test")).run(AccountMigrations.all, now: 0)
        let store = SQLAccountStore(database: database)
        #expect(try await Self.pages(store, "ovan", viewer: ids[6]) == ["Mara Ovanes"])
        try await store.updateProfile(id: ids[7], name: "Mara Quist", status: nil, at: Self.now)
        #expect(try await Self.pages(store, "ovan", viewer: ids[6]).isEmpty)
        #expect(try await Self.pages(store, "quis", viewer: ids[6]) == ["Mara Quist"])
        #expect(try await Self.pages(store, "ma", viewer: ids[6]) == ["Mara Quist"])
        try await store.deleteUser(id: ids[7])
        #expect(try await Self.pages(store, "quis", viewer: ids[6]).isEmpty)
        let (left, miscounted, counted) = try await database.read { sql in
            (try sql.scalar("SELECT COUNT(*) FROM user_trigrams WHERE user NOT IN (SELECT rowid FROM users)", as: Int.self),
             try sql.scalar("""
                SELECT COUNT(*) FROM user_trigram_counts c WHERE n <> (SELECT COUNT(*) FROM user_trigrams WHERE trigram = c.trigram)
                """, as: Int.self),
             try sql.scalar("SELECT n FROM user_trigram_counts WHERE trigram = 'ann'", as: Int.self))
        }
        #expect(left == 0)
        #expect(miscounted == 0, "user_trigram_counts follows the entries")
        #expect(counted == Self.names.filter { $0.lowercased().contains("ann") }.count)
        try await database.close()
    }
}

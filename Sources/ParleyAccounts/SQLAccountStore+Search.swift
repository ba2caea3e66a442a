import Foundation
import ParleyCore
import ParleyStorage

/// User search: names match by part, an address only when typed whole (someone who knows it, so
/// that search cannot harvest addresses by their domain or pieces); a page at a time in name order
/// (name_key, then id) after a keyset cursor. A query of two characters (shorter than a trigram)
/// finds the names that start with them or have a word (after a space) that does — what a search
/// box shows while the name is being typed.
extension SQLAccountStore {
    public func searchUsers(
        query: String, viewer: UserID, excluding: Set<UserID>, after cursor: UserSearchCursor?, limit: Int
    ) async throws -> [UserRecord] {
        let key = Self.nameKey(query)
        let address = AccountRules.normalizeEmail(query)
        let twoLetters = key.unicodeScalars.count < 3
        let filter = SearchFilter(viewer: viewer, hidden: Array(excluding), cursor: cursor)
        let sqlite = database.kind == .sqlite
        return try await database.read { sql in
            guard sqlite else {
                return try Self.searchByLike(sql, key: key, twoLetters: twoLetters, address: address, filter, limit: limit)
            }
            // On SQLite each part is a page read in name order from an index, merged here.
            var found = try sql.query("""
                \(Self.userColumns) WHERE email = ? AND phone_number IS NULL\(filter.conditions(""))
                """, binding: [.text(address)] + filter.binds).map(Self.decodeUser)
            if twoLetters {
                found += try Self.namesStarting(sql, with: key, filter, limit: limit)
                found += try Self.namesContaining(sql, " " + key, filter, limit: limit)
            } else {
                found += try Self.namesContaining(sql, key, filter, limit: limit)
            }
            return Self.firstInNameOrder(found, limit: limit)
        }
    }

    /// Who may be listed, and from where on: never the viewer, the unverified or the hidden (users
    /// who blocked the viewer); only after the cursor.
    struct SearchFilter {
        let viewer: UserID
        let hidden: [UserID]
        let cursor: UserSearchCursor?

        /// The conditions, each on a column of the table named `table` (empty: unqualified).
        func conditions(_ table: String) -> String {
            var text = " AND \(table)id <> ? AND \(table)email_verified_at IS NOT NULL"
            if !hidden.isEmpty { text += " AND \(table)id NOT IN (\(sqlPlaceholders(hidden.count)))" }
            if cursor != nil { text += " AND (\(table)name_key, \(table)id) > (?, ?)" }
            return text
        }

        var binds: [SQLValue] {
            [.text(viewer.rawValue)] + hidden.map(\.rawValue.sqlValue)
                + (cursor.map { [.text($0.nameKey), .text($0.id.rawValue)] } ?? [])
        }
    }

    /// PostgreSQL: `LIKE` (ILIKE there), which its pg_trgm index (accounts.2) serves.
    static func searchByLike(
        _ sql: Snapshot, key: String, twoLetters: Bool, address: String, _ filter: SearchFilter, limit: Int
    ) throws -> [UserRecord] {
        let escaped = escapeLike(key)
        let names = twoLetters
            ? "(name_key LIKE ? ESCAPE '\\' OR name_key LIKE ? ESCAPE '\\')" : "name_key LIKE ? ESCAPE '\\'"
        let patterns: [SQLValue] = twoLetters ? [.text(escaped + "%"), .text("% " + escaped + "%")] : [.text("%" + escaped + "%")]
        return try sql.query("""
            \(userColumns) WHERE (\(names) OR (email = ? AND phone_number IS NULL))\(filter.conditions(""))
            ORDER BY name_key, id LIMIT ?
            """, binding: patterns + [.text(address)] + filter.binds + [.integer(Int64(limit))]).map(decodeUser)
    }

    /// SQLite: the names that start with `prefix`, a range of the name index in its order.
    static func namesStarting(_ sql: Snapshot, with prefix: String, _ filter: SearchFilter, limit: Int) throws -> [UserRecord] {
        var from = prefix
        if let cursor = filter.cursor, cursor.nameKey.utf8.lexicographicallyPrecedes(prefix.utf8) == false { from = cursor.nameKey }
        let (bound, binds): (String, [SQLValue]) = if let end = prefixEnd(prefix) {
            ("name_key < ?", [.text(end)])
        } else {
            ("instr(name_key, ?) = 1", [.text(prefix)])
        }
        return try sql.query("""
            \(userColumns) INDEXED BY users_name_key WHERE name_key >= ? AND \(bound)\(filter.conditions(""))
            ORDER BY name_key, id LIMIT ?
            """, binding: [.text(from)] + binds + filter.binds + [.integer(Int64(limit))]).map(decodeUser)
    }

    /// SQLite: the names that hold `text`, read in name order from the entries of its rarest
    /// trigram in `user_trigrams` (accounts.8), each checked whole: a page reads its own rows and
    /// the entries of that trigram between them, however many names match elsewhere.
    static func namesContaining(_ sql: Snapshot, _ text: String, _ filter: SearchFilter, limit: Int) throws -> [UserRecord] {
        let grams = trigrams(text)
        guard let first = grams.first else { return [] }
        let trigram = grams.count == 1 ? first : try rarest(sql, grams)
        let columns = userFields.map { "u.\($0) AS \($0)" }.joined(separator: ", ")
        return try sql.query("""
            SELECT \(columns) FROM user_trigrams g JOIN users u ON u.rowid = g.user
            WHERE g.trigram = ? AND g.name_key >= ? AND instr(g.name_key, ?) > 0\(filter.conditions("u."))
            ORDER BY g.name_key, u.id LIMIT ?
            """, binding: [.text(trigram), .text(filter.cursor?.nameKey ?? ""), .text(text)] + filter.binds
                + [.integer(Int64(limit))]).map(decodeUser)
    }

    /// The trigram of `grams` with the fewest entries (user_trigram_counts; one that none has, none).
    static func rarest(_ sql: Snapshot, _ grams: [String]) throws -> String {
        try sql.query("""
            SELECT v.column1 AS gram FROM (VALUES \(Array(repeating: "(?)", count: grams.count).joined(separator: ", "))) v
            LEFT JOIN user_trigram_counts c ON c.trigram = v.column1 ORDER BY COALESCE(c.n, 0) LIMIT 1
            """, binding: grams.map(\.sqlValue)).first?.decode(column: "gram", as: String.self) ?? grams[0]
    }

    /// The distinct runs of three unicode scalars in `text`, in order: what SQLite's substr cuts
    /// (it counts characters as code points).
    static func trigrams(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3 else { return [] }
        var seen = Set<String>(), grams: [String] = []
        for start in 0...(scalars.count - 3) {
            var gram = String.UnicodeScalarView()
            gram.append(contentsOf: scalars[start..<start + 3])
            if seen.insert(String(gram)).inserted { grams.append(String(gram)) }
        }
        return grams
    }

    /// The least string above every one that starts with `prefix` in SQLite's byte order (UTF-8
    /// orders as code points): its last scalar one higher. Nil past U+10FFFF.
    static func prefixEnd(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return nil }
        let next = last.value + 1 == 0xD800 ? 0xE000 : last.value + 1   // past the surrogates
        guard let scalar = Unicode.Scalar(next) else { return nil }
        var end = String.UnicodeScalarView()
        end.append(contentsOf: scalars + [scalar])
        return String(end)
    }

    /// Pages of several parts as one: each user once, in name order, at most `limit`.
    static func firstInNameOrder(_ users: [UserRecord], limit: Int) -> [UserRecord] {
        var seen = Set<UserID>()
        let unique = users.filter { seen.insert($0.id).inserted }
        let sorted = unique.map { (key: Array(nameKey($0.name).utf8), user: $0) }.sorted {
            $0.key != $1.key ? $0.key.lexicographicallyPrecedes($1.key) : $0.user.id.rawValue.utf8.lexicographicallyPrecedes($1.user.id.rawValue.utf8)
        }
        return sorted.prefix(limit).map(\.user)
    }
}

import Foundation
import ParleyCore
import ParleyStorage

/// `QuoteStore` in SQL. Reads start from `quote_audience` (who may see what), so visibility is
/// one join in every statement rather than a check after the fact.
public struct SQLQuoteStore: QuoteStore {
    let database: Database
    /// Up to this many quotes a viewer may see, search reads them all rather than the index.
    let scanLimit: Int

    public init(database: Database, scanLimit: Int = 2000) {
        self.database = database
        self.scanLimit = max(scanLimit, 0)
    }

    public func insert(
        id: QuoteID, text: String, addedBy: UserID, at now: Date, sayer: QuotePerson, hearers: [QuotePerson]
    ) async throws -> QuoteRecord {
        try await database.write { sql in
            let seq = try sql.scalar("""
                INSERT INTO quotes (id, text, added_by, created_at) VALUES (?, ?, ?, ?) RETURNING seq
                """, id.rawValue, text, addedBy.rawValue, now.storageMillis, as: Int64.self) ?? 0
            var people: [QuotePerson] = []
            for (position, (role, person)) in ([("said", sayer)] + hearers.map { ("heard", $0) }).enumerated() {
                // The number's account, if it has joined: read in this transaction, so a sign-up
                // either sees this quote to claim or is seen here.
                let user = try sql.scalar("SELECT id FROM users WHERE phone_number = ?", person.phoneNumber, as: String?.self) ?? nil
                try sql.execute("""
                    INSERT INTO quote_people (quote_seq, position, role, phone_number, user_id, book_name) VALUES (?, ?, ?, ?, ?, ?)
                    """, seq, position, role, person.phoneNumber, user, person.bookName)
                if let user {
                    try sql.execute("INSERT INTO quote_audience (user_id, quote_seq) VALUES (?, ?) ON CONFLICT DO NOTHING", user, seq)
                }
                people.append(QuotePerson(phoneNumber: person.phoneNumber, userID: user.map(UserID.init(rawValue:)), bookName: person.bookName))
                try Self.saveContact(owner: addedBy, number: person.phoneNumber, name: person.bookName, sql)
            }
            try sql.execute("INSERT INTO quote_audience (user_id, quote_seq) VALUES (?, ?) ON CONFLICT DO NOTHING", addedBy.rawValue, seq)
            return QuoteRecord(id: id, seq: seq, text: text, addedBy: addedBy, createdAt: now, sayer: people[0], hearers: Array(people.dropFirst()))
        }
    }

    public func quote(id: QuoteID, viewer: UserID) async throws -> QuoteView? {
        try await database.read { sql in
            let rows = try sql.query("""
                SELECT q.seq, q.id, q.text, q.added_by, q.created_at FROM quotes q
                JOIN quote_audience a ON a.quote_seq = q.seq AND a.user_id = ?
                WHERE q.id = ?
                """, viewer.rawValue, id.rawValue)
            return try Self.hydrate(rows, viewer: viewer, sql).first
        }
    }

    public func feed(viewer: UserID, saidBy: String?, before cursor: Int64?, limit: Int) async throws -> [QuoteView] {
        var binds: [SQLValue] = [.text(viewer.rawValue), .integer(cursor ?? Int64.max)]
        var filter = ""
        if let saidBy {
            filter = """
                 AND EXISTS (SELECT 1 FROM quote_people p WHERE p.quote_seq = a.quote_seq AND p.role = 'said'
                   AND (p.phone_number = ? OR p.user_id = ?))
                """
            binds += [.text(saidBy), .text(saidBy)]
        }
        binds.append(.integer(Int64(limit)))
        return try await database.read { [binds, filter] sql in
            let rows = try sql.query("""
                SELECT q.seq, q.id, q.text, q.added_by, q.created_at FROM quote_audience a JOIN quotes q ON q.seq = a.quote_seq
                WHERE a.user_id = ? AND a.quote_seq < ?\(filter)
                ORDER BY a.quote_seq DESC LIMIT ?
                """, binding: binds)
            return try Self.hydrate(rows, viewer: viewer, sql)
        }
    }

    public func quotes(of viewer: UserID, role: QuoteRole, before cursor: Int64?, limit: Int) async throws -> [QuoteView] {
        try await database.read { sql in
            let rows = try sql.query("""
                SELECT q.seq, q.id, q.text, q.added_by, q.created_at FROM quote_people p JOIN quotes q ON q.seq = p.quote_seq
                WHERE p.user_id = ? AND p.role = ? AND p.quote_seq < ?
                ORDER BY p.quote_seq DESC LIMIT ?
                """, viewer.rawValue, role.rawValue, cursor ?? Int64.max, limit)
            return try Self.hydrate(rows, viewer: viewer, sql)
        }
    }

    public func search(viewer: UserID, text: String, before cursor: Int64?, limit: Int) async throws -> [QuoteView] {
        let indexed = database.kind == .sqlite && text.count >= 3
        let phrase = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let pattern = "%" + Self.escapeLike(text) + "%"
        let scanLimit = self.scanLimit
        return try await database.read { sql in
            // Two plans, each bounded. Someone who may see few quotes has them read one by one
            // (their audience rows, newest first, until the page is full): at most `scanLimit`
            // short texts. For more, the trigram index finds the quotes holding the text, newest
            // first, and the audience keeps those the viewer may see until the page is full: an
            // index walk that stops early, since such a viewer sees a good share of any match.
            // One or two characters are shorter than a trigram, and most texts hold them: the
            // scan then stops after a page. Both match alike (any part, ASCII case folded).
            let visible = indexed
                ? try sql.scalar("SELECT COUNT(*) FROM (SELECT 1 FROM quote_audience WHERE user_id = ? LIMIT ?)",
                                 viewer.rawValue, scanLimit + 1, as: Int.self) ?? 0
                : 0
            let rows: [Row]
            if visible > scanLimit {
                rows = try sql.query("""
                    SELECT q.seq, q.id, q.text, q.added_by, q.created_at FROM quotes_search s
                    JOIN quote_audience a ON a.user_id = ? AND a.quote_seq = s.rowid
                    JOIN quotes q ON q.seq = s.rowid
                    WHERE quotes_search MATCH ? AND s.rowid < ?
                    ORDER BY s.rowid DESC LIMIT ?
                    """, viewer.rawValue, phrase, cursor ?? Int64.max, limit)
            } else {
                rows = try sql.query("""
                    SELECT q.seq, q.id, q.text, q.added_by, q.created_at FROM quote_audience a JOIN quotes q ON q.seq = a.quote_seq
                    WHERE a.user_id = ? AND a.quote_seq < ? AND q.text LIKE ? ESCAPE '\\'
                    ORDER BY a.quote_seq DESC LIMIT ?
                    """, viewer.rawValue, cursor ?? Int64.max, pattern, limit)
            }
            return try Self.hydrate(rows, viewer: viewer, sql)
        }
    }

    public func saveContacts(owner: UserID, _ contacts: [String: String]) async throws {
        if contacts.isEmpty { return }
        try await database.write { sql in
            // The book's size with these numbers in it, counted in the write; numbers it holds
            // already only change their names. SQLite's one writer puts two saves of a book one
            // after the other; on PostgreSQL the owner's row, locked, does.
            if sql.kind == .postgresql { _ = try sql.query("SELECT id FROM users WHERE id = ? FOR UPDATE", owner.rawValue) }
            let held = try sql.scalar("SELECT COUNT(*) FROM quote_contacts WHERE owner_id = ?", owner.rawValue, as: Int.self) ?? 0
            if held + contacts.count > QuoteRules.maxContacts {
                let numbers = Array(contacts.keys)
                let known = try sql.query("""
                    SELECT COUNT(*) FROM quote_contacts WHERE owner_id = ? AND phone_number IN (\(sqlPlaceholders(numbers.count)))
                    """, binding: [.text(owner.rawValue)] + numbers.map { .text($0) }).first?.first(as: Int.self) ?? 0
                guard held + contacts.count - known <= QuoteRules.maxContacts else { throw QuoteErrors.addressBookFull }
            }
            for (number, name) in contacts { try Self.saveContact(owner: owner, number: number, name: name, sql) }
        }
    }

    public func claim(phoneNumber: String, for user: UserID) async throws -> Int {
        try await database.write { sql in
            try sql.execute("UPDATE quote_people SET user_id = ? WHERE phone_number = ? AND user_id IS NULL", user.rawValue, phoneNumber)
            return try sql.execute("""
                INSERT INTO quote_audience (user_id, quote_seq) SELECT DISTINCT ?, quote_seq FROM quote_people WHERE phone_number = ?
                ON CONFLICT DO NOTHING
                """, user.rawValue, phoneNumber)
        }
    }

    static func saveContact(owner: UserID, number: String, name: String, _ sql: Transaction) throws {
        try sql.execute("""
            INSERT INTO quote_contacts (owner_id, phone_number, name) VALUES (?, ?, ?)
            ON CONFLICT (owner_id, phone_number) DO UPDATE SET name = excluded.name
            """, owner.rawValue, number, name)
    }

    /// The people of these quotes and the viewer's names for them, in the same snapshot.
    static func hydrate(_ rows: [Row], viewer: UserID, _ sql: some SQLQuerying) throws -> [QuoteView] {
        if rows.isEmpty { return [] }
        let seqs = try rows.map { try $0.decode(column: "seq", as: Int64.self) }
        var people: [Int64: [(role: String, person: QuotePerson)]] = [:]
        for row in try sql.query("""
            SELECT quote_seq, role, phone_number, user_id, book_name FROM quote_people
            WHERE quote_seq IN (\(sqlPlaceholders(seqs.count))) ORDER BY quote_seq, position
            """, binding: seqs.map { .integer($0) }) {
            let person = QuotePerson(
                phoneNumber: try row.decode(column: "phone_number", as: String.self),
                userID: try row.decode(column: "user_id", as: String?.self).map(UserID.init(rawValue:)),
                bookName: try row.decode(column: "book_name", as: String.self))
            people[try row.decode(column: "quote_seq", as: Int64.self), default: []].append((try row.decode(column: "role", as: String.self), person))
        }
        let numbers = Array(Set(people.values.flatMap { $0.filter { $0.person.userID == nil }.map(\.person.phoneNumber) }))
        var names: [String: String] = [:]
        if !numbers.isEmpty {
            for row in try sql.query("""
                SELECT phone_number, name FROM quote_contacts WHERE owner_id = ? AND phone_number IN (\(sqlPlaceholders(numbers.count)))
                """, binding: [.text(viewer.rawValue)] + numbers.map { .text($0) }) {
                names[try row.decode(column: "phone_number", as: String.self)] = try row.decode(column: "name", as: String.self)
            }
        }
        return try rows.compactMap { row in
            let seq = try row.decode(column: "seq", as: Int64.self)
            let named = people[seq] ?? []
            guard let sayer = named.first(where: { $0.role == "said" })?.person else { return nil }
            let quote = QuoteRecord(
                id: QuoteID(rawValue: try row.decode(column: "id", as: String.self)), seq: seq,
                text: try row.decode(column: "text", as: String.self),
                addedBy: try row.decode(column: "added_by", as: String?.self).map(UserID.init(rawValue:)),
                createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
                sayer: sayer, hearers: named.filter { $0.role == "heard" }.map(\.person))
            let mine = Set(named.map(\.person.phoneNumber))
            return QuoteView(quote: quote, names: names.filter { mine.contains($0.key) })
        }
    }

    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}

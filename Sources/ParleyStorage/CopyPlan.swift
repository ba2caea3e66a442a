/// One table of an SQLite database as `DatabaseCopy` reads it: its columns in order, how its rows
/// are paged (by rowid, or by primary key for a `WITHOUT ROWID` table) and the tables its foreign
/// keys point at.
public struct CopyTable: Sendable, Equatable {
    public let name: String
    public let columns: [String]
    /// The primary key's columns in key order; pages follow it when there is no rowid.
    public let primaryKey: [String]
    public let hasRowID: Bool
    /// Tables this one's foreign keys reference (itself left out).
    public let parents: Set<String>

    public init(name: String, columns: [String], primaryKey: [String], hasRowID: Bool, parents: Set<String>) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.hasRowID = hasRowID
        self.parents = parents
    }
}

/// What to copy from an SQLite database, read from its own schema (`pragma_table_list`,
/// `pragma_table_info`, `pragma_foreign_key_list`) so that a table a migration adds is copied
/// without anyone listing it; and what is left behind because PostgreSQL has its own.
public struct CopyPlan: Sendable {
    /// Parents before children: every table after the tables its foreign keys point at.
    public let tables: [CopyTable]
    /// SQLite's own structures, with why each stays behind.
    public let skipped: [SkippedTable]

    /// The bookkeeping table of `Migrator`, which the target's own migrations fill.
    public static let migrationsTable = "parley_migrations"

    /// Tables named so are search indexes SQLite keeps by triggers from other tables (accounts.8's
    /// `user_trigrams` and `user_trigram_counts`): not data, and PostgreSQL searches with its own
    /// trigram indexes.
    public static let searchIndexSuffixes = ["_trigrams", "_trigram_counts"]

    /// Reads the plan from an SQLite snapshot.
    public static func read(_ sql: Snapshot) throws -> CopyPlan {
        var tables: [CopyTable] = []
        var skipped: [SkippedTable] = []
        let listed = try sql.query("SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' ORDER BY name")
        for row in listed {
            let name = try row.decode(column: "name", as: String.self)
            let type = try row.decode(column: "type", as: String.self)
            if name.hasPrefix("sqlite_") { continue }   // SQLite's catalogue and statistics
            switch type {
            case "virtual":
                skipped.append(SkippedTable(name: name, reason: "SQLite full-text index; PostgreSQL has its own trigram index"))
                continue
            case "shadow":
                skipped.append(SkippedTable(name: name, reason: "part of an SQLite full-text index"))
                continue
            case "table": break
            default: continue   // views
            }
            if searchIndexSuffixes.contains(where: name.hasSuffix) {
                skipped.append(SkippedTable(name: name, reason: "SQLite search index, kept by triggers; PostgreSQL has its own trigram index"))
                continue
            }
            if name == migrationsTable {
                skipped.append(SkippedTable(name: name, reason: "the target's own migrations fill it"))
                continue
            }
            let info = try sql.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", name)
            let columns = try info.map { try $0.decode(column: "name", as: String.self) }
            let primaryKey = try info.map { (try $0.decode(column: "name", as: String.self), try $0.decode(column: "pk", as: Int.self)) }
                .filter { $0.1 > 0 }.sorted { $0.1 < $1.1 }.map { $0.0 }
            let parents = Set(try sql.query(#"SELECT "table" FROM pragma_foreign_key_list(?)"#, name)
                .map { try $0.decode(column: "table", as: String.self) }).subtracting([name])
            tables.append(CopyTable(name: name, columns: columns, primaryKey: primaryKey,
                                    hasRowID: try row.decode(column: "wr", as: Int.self) == 0, parents: parents))
        }
        return CopyPlan(tables: try ordered(tables), skipped: skipped)
    }

    init(tables: [CopyTable], skipped: [SkippedTable]) {
        self.tables = tables
        self.skipped = skipped
    }

    /// `tables` so that each comes after its parents (by name among equals, so the order is
    /// stable); a parent that is not among them is not waited for. Throws on a cycle.
    public static func ordered(_ tables: [CopyTable]) throws -> [CopyTable] {
        let names = Set(tables.map(\.name))
        var placed: Set<String> = []
        var remaining = tables.sorted { $0.name < $1.name }
        var order: [CopyTable] = []
        while !remaining.isEmpty {
            guard let next = remaining.firstIndex(where: { $0.parents.intersection(names).subtracting([$0.name]).isSubset(of: placed) }) else {
                throw CopyError.foreignKeyCycle(remaining.map(\.name))
            }
            let table = remaining.remove(at: next)
            order.append(table)
            placed.insert(table.name)
        }
        return order
    }
}

/// A table of the SQLite file that is not copied, and why.
public struct SkippedTable: Sendable, Equatable {
    public let name: String
    public let reason: String
}

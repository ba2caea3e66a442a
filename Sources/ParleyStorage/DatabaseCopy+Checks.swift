/// What `DatabaseCopy` checks on either side before and after moving rows.
extension DatabaseCopy {
    /// A PostgreSQL column as the copy sees it.
    struct TargetColumn: Sendable {
        let type: CopyColumnType
        /// An identity column, or one numbered by a sequence (`serial`).
        let numbered: Bool
    }

    /// The SQLite file's recorded migrations are exactly this Parley's.
    func checkSourceMigrations() async throws {
        let applied = try await source.read { sql -> Set<String> in
            let listed = try sql.scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", CopyPlan.migrationsTable, as: Int.self)
            guard listed == 1 else { return [] }
            return Set(try sql.query("SELECT id FROM parley_migrations").map { try $0.decode(column: "id", as: String.self) })
        }
        let known = Set(migrations.map(\.id))
        let missing = migrations.map(\.id).filter { !applied.contains($0) }
        if !missing.isEmpty { throw CopyError.sourceBehind(missing) }
        let unknown = applied.subtracting(known).sorted()
        if !unknown.isEmpty { throw CopyError.sourceAhead(unknown) }
    }

    /// Throws `targetNotEmpty` if any table the copy fills already has a row in the target.
    func refuseUnlessEmpty(_ plan: CopyPlan) async throws {
        let tables = plan.tables.map(\.name)
        let found = try await target.read { sql -> (String, Int)? in
            let existing = Set(try sql.query("""
                SELECT table_name::text AS name FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                """).map { try $0.decode(column: "name", as: String.self) })
            for table in tables where existing.contains(table) {
                let rows = try sql.scalar("SELECT COUNT(*) FROM \(CopySQL.quoted(table))", as: Int.self) ?? 0
                if rows > 0 { return (table, rows) }
            }
            return nil
        }
        if let found { throw CopyError.targetNotEmpty(table: found.0, rows: found.1) }
    }

    /// The target's tables and their columns (in the current schema).
    func targetColumns() async throws -> [String: [String: TargetColumn]] {
        try await target.read { sql in
            var tables: [String: [String: TargetColumn]] = [:]
            let rows = try sql.query("""
                SELECT c.table_name::text AS table_name, c.column_name::text AS column_name, c.data_type::text AS data_type,
                       c.is_identity::text AS is_identity, COALESCE(c.column_default, '')::text AS column_default
                FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
                """)
            for row in rows {
                let numbered = try row.decode(column: "is_identity", as: String.self) == "YES"
                    || (try row.decode(column: "column_default", as: String.self)).hasPrefix("nextval(")
                let table = try row.decode(column: "table_name", as: String.self)
                let column = try row.decode(column: "column_name", as: String.self)
                let type = CopyColumnType(postgreSQL: try row.decode(column: "data_type", as: String.self))
                tables[table, default: [:]][column] = TargetColumn(type: type, numbered: numbered)
            }
            return tables
        }
    }

    /// Every copied table is in the target with the same columns, and the target has no table
    /// the SQLite file lacks (the migrations' own aside); throws with one line per difference.
    static func compare(_ plan: CopyPlan, _ target: [String: [String: TargetColumn]]) throws {
        var differences: [String] = []
        let copied = Set(plan.tables.map(\.name))
        for table in plan.tables {
            guard let columns = target[table.name] else {
                differences.append("table \(table.name): in the SQLite database, not in PostgreSQL")
                continue
            }
            for column in table.columns where columns[column] == nil {
                differences.append("column \(table.name).\(column): in the SQLite database, not in PostgreSQL")
            }
            for column in columns.keys.sorted() where !table.columns.contains(column) {
                differences.append("column \(table.name).\(column): in PostgreSQL, not in the SQLite database")
            }
        }
        for table in target.keys.sorted() where !copied.contains(table) && table != CopyPlan.migrationsTable {
            differences.append("table \(table): in PostgreSQL, not in the SQLite database")
        }
        if !differences.isEmpty { throw CopyError.schemaMismatch(differences) }
    }

    /// Moves each identity (or serial) column's sequence past the largest copied value, so the
    /// next row the database numbers does not take an id a copied row has. Returns `table.column`s.
    func advanceSequences(_ columns: [String: [String: TargetColumn]]) async throws -> [String] {
        let numbered = columns.keys.sorted().flatMap { table in
            columns[table]!.filter(\.value.numbered).keys.sorted().map { (table, $0) }
        }
        guard !numbered.isEmpty else { return [] }
        try await target.write { sql in
            for (table, column) in numbered {
                _ = try sql.query("""
                    SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(\(CopySQL.quoted(column))) FROM \(CopySQL.quoted(table))), 0) + 1, false)
                    """, CopySQL.quoted(table), column)
            }
        }
        return numbered.map { "\($0.0).\($0.1)" }
    }

    /// Each copied table's rows counted on both sides; throws `countsDiffer` unless all agree.
    func compareCounts(_ plan: CopyPlan) async throws -> [CopyReport.Table] {
        let tables = plan.tables.map(\.name)
        let count = { @Sendable (sql: Snapshot) throws -> [Int] in
            try tables.map { try sql.scalar("SELECT COUNT(*) FROM \(CopySQL.quoted($0))", as: Int.self) ?? 0 }
        }
        let sqlite = try await source.read(count)
        let postgreSQL = try await target.read(count)
        let report = zip(tables, zip(sqlite, postgreSQL)).map { CopyReport.Table(name: $0, sqliteRows: $1.0, postgreSQLRows: $1.1) }
        let differing = report.filter { $0.sqliteRows != $0.postgreSQLRows }
            .map { "\($0.name): \($0.sqliteRows) rows in SQLite, \($0.postgreSQLRows) in PostgreSQL" }
        if !differing.isEmpty { throw CopyError.countsDiffer(differing) }
        return report
    }
}

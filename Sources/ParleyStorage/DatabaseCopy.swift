import Logging

/// Moves an installation from its SQLite file to a PostgreSQL database (`parley migrate-data`).
///
/// In order: the SQLite file must have exactly this Parley's migrations applied; the target must
/// hold no rows in any table the copy fills (checked before its migrations run, and again after);
/// the target gets every migration, as a node starting on it would; both schemas must then have
/// the same tables and columns. Each table is copied parents first (foreign keys), a page at a
/// time — `batchRows` rows read by key from SQLite, written by one multi-row INSERT in one
/// transaction — so no table is ever held in memory. Identity columns' sequences are then moved
/// past the copied ids, the tables analysed, and every table's row count compared on both sides.
///
/// The tables and columns come from the SQLite file's own schema; SQLite's full-text tables and
/// the migrations' bookkeeping are left behind (`CopyPlan.skipped`). A failure part-way leaves
/// the target partly filled (each page commits on its own): drop it and start again.
public struct DatabaseCopy: Sendable {
    public let source: Database
    public let target: Database
    public let migrations: [Migration]
    public let logger: Logger
    /// Rows per page, per INSERT and per transaction (fewer for a wide table).
    public var batchRows = 2000

    public init(from source: Database, to target: Database, migrations: [Migration], logger: Logger) {
        self.source = source
        self.target = target
        self.migrations = migrations
        self.logger = logger
    }

    /// Runs the copy; `copied` hears of each table once its rows are in. Throws `CopyError` (or
    /// the engines' own errors) and leaves the SQLite file untouched either way.
    public func run(now: Int64, copied: (String, Int) -> Void = { _, _ in }) async throws -> CopyReport {
        guard source.kind == .sqlite, target.kind == .postgresql else { throw CopyError.wrongEngines }
        let plan = try await source.read { try CopyPlan.read($0) }
        try await checkSourceMigrations()
        try await refuseUnlessEmpty(plan)
        try await Migrator(database: target, logger: logger).run(migrations, now: now)
        let columns = try await targetColumns()
        try Self.compare(plan, columns)
        try await refuseUnlessEmpty(plan)

        for table in plan.tables {
            let types = table.columns.map { columns[table.name]?[$0]?.type ?? .other("unknown") }
            let rows = try await copy(table, types: types)
            logger.debug("copied table", metadata: ["table": "\(table.name)", "rows": "\(rows)"])
            copied(table.name, rows)
        }
        let sequences = try await advanceSequences(columns)
        try await analyze(plan)
        let counts = try await compareCounts(plan)
        return CopyReport(tables: counts, skipped: plan.skipped, sequences: sequences)
    }

    /// Copies `table` page by page; returns the rows written.
    func copy(_ table: CopyTable, types: [CopyColumnType]) async throws -> Int {
        let limit = CopySQL.batchRows(columns: table.columns.count, limit: batchRows)
        let first = CopySQL.page(table, afterKey: false), next = CopySQL.page(table, afterKey: true)
        var key: [SQLValue]?
        var written = 0
        while true {
            let select = key == nil ? first : next, binds = (key ?? []) + [.integer(Int64(limit))]
            let page = try await source.read { try $0.query(select, binding: binds) }
            guard let last = page.last else { break }
            var values: [SQLValue] = []
            values.reserveCapacity(page.count * table.columns.count)
            for row in page {
                for (value, (column, type)) in zip(CopySQL.values(of: row, in: table), zip(table.columns, types)) {
                    guard let converted = type.convert(value) else {
                        throw CopyError.badValue(table: table.name, column: column, value: Self.describe(value), type: type.name)
                    }
                    values.append(converted)
                }
            }
            let insert = CopySQL.insert(table, rows: page.count), name = table.name, batch = values
            do {
                _ = try await target.write { try $0.execute(insert, binding: batch) }
            } catch let error as PostgreSQLError {
                throw CopyError.insertFailed(table: name, reason: "\(error.message) (SQLSTATE \(error.sqlState))")
            }
            written += page.count
            if page.count < limit { break }
            key = CopySQL.key(of: last, in: table)
        }
        return written
    }

    /// Gathers the planner's statistics on every filled table now, rather than whenever autovacuum
    /// gets to them: the first queries on the new database are planned on the real row counts.
    func analyze(_ plan: CopyPlan) async throws {
        let tables = plan.tables.map(\.name)
        try await target.write { sql in
            for table in tables { try sql.execute("ANALYZE \(CopySQL.quoted(table))") }
        }
    }

    static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): "the integer \(number)"
        case .real(let number): "the number \(number)"
        case .text(let text): "the text \"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        case .blob(let bytes): "\(bytes.count) bytes"
        }
    }
}

/// What the copy did, table by table, for the operator to read.
public struct CopyReport: Sendable {
    public struct Table: Sendable, Equatable {
        public let name: String
        public let sqliteRows: Int
        public let postgreSQLRows: Int
    }

    /// Every copied table in the order it was copied, with both sides' counts (equal, or the copy threw).
    public let tables: [Table]
    public let skipped: [SkippedTable]
    /// `table.column` of every identity column moved past the copied ids.
    public let sequences: [String]

    public var rows: Int { tables.reduce(0) { $0 + $1.postgreSQLRows } }
}

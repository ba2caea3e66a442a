/// Why `DatabaseCopy` stopped, in words an operator can act on.
public enum CopyError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The source is PostgreSQL or the target SQLite.
    case wrongEngines
    /// The SQLite database lacks migrations this Parley has: an older Parley wrote it.
    case sourceBehind([String])
    /// The SQLite database has migrations this Parley does not know: a newer Parley wrote it.
    case sourceAhead([String])
    /// The target already holds rows (a table and how many rows it has, at least).
    case targetNotEmpty(table: String, rows: Int)
    /// Tables or columns that differ between the two schemas, one line each.
    case schemaMismatch([String])
    /// Foreign keys that point around in a circle: no order inserts these tables.
    case foreignKeyCycle([String])
    /// A value the target's column cannot hold.
    case badValue(table: String, column: String, value: String, type: String)
    /// PostgreSQL refused a batch of rows.
    case insertFailed(table: String, reason: String)
    /// After the copy, a table holds another number of rows than in SQLite.
    case countsDiffer([String])

    public var description: String {
        switch self {
        case .wrongEngines:
            "the copy reads SQLite and writes PostgreSQL"
        case .sourceBehind(let ids):
            "the SQLite database lacks migrations \(ids.joined(separator: ", ")): start this version of parley on it once (it migrates on start), stop it, then copy"
        case .sourceAhead(let ids):
            "the SQLite database has migrations this parley does not know (\(ids.joined(separator: ", "))): copy with the version that wrote it"
        case .targetNotEmpty(let table, let rows):
            "the PostgreSQL database already holds data (table \(table) has \(rows) row\(rows == 1 ? "" : "s")): copy into a new, empty database"
        case .schemaMismatch(let lines):
            "the schemas differ after migrating the target:\n  " + lines.joined(separator: "\n  ")
        case .foreignKeyCycle(let tables):
            "the foreign keys of \(tables.joined(separator: ", ")) form a cycle: no insert order satisfies them"
        case .badValue(let table, let column, let value, let type):
            "\(table).\(column) holds \(value), which a PostgreSQL \(type) column cannot take"
        case .insertFailed(let table, let reason):
            "PostgreSQL refused rows of \(table): \(reason). The target now holds part of the data: drop it and create it again before another try"
        case .countsDiffer(let lines):
            "after the copy the row counts differ (was parley still running on the SQLite file?):\n  " + lines.joined(separator: "\n  ")
        }
    }
}

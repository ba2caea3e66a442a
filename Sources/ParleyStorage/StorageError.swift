/// Failures of the storage layer itself (a statement's own failure is `SQLiteError`).
public enum StorageError: Error, CustomStringConvertible, Sendable {
    case unexpectedNull
    case nullInColumn(String)
    case noSuchColumn(String)
    case typeMismatch(expected: String, found: SQLValue)
    case closed
    /// The engine rolled the whole batch back (I/O error, disk full): this work was not kept.
    case batchRolledBack(String)
    /// No SQLite file where one was to be read.
    case noDatabaseFile(String)
    /// A second statement that changes the database inside `Database.writeAutocommit`, which
    /// allows one (on PostgreSQL the first has committed alone by then); not run.
    case secondChange(String)

    public var description: String {
        switch self {
        case .unexpectedNull: "NULL where a value was expected"
        case .nullInColumn(let column): "NULL in column \(column)"
        case .noSuchColumn(let column): "no column \(column) in the result"
        case .typeMismatch(let expected, let found): "expected \(expected), found \(found)"
        case .closed: "the database is closed"
        case .batchRolledBack(let reason): "the transaction was rolled back: \(reason)"
        case .noDatabaseFile(let path): "no SQLite database at \(path)"
        case .secondChange(let sql): "a second change in a write that allows one (writeAutocommit): \(sql.prefix(80))"
        }
    }
}

/// An SQLite result code other than OK/ROW/DONE, with the connection's message.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?

    /// SQLITE_CONSTRAINT (a UNIQUE, NOT NULL, FOREIGN KEY or CHECK constraint failed).
    public var isConstraintViolation: Bool { code & 0xff == 19 }

    public var description: String { "SQLite error \(code): \(message)" + (sql.map { " in \($0)" } ?? "") }
}

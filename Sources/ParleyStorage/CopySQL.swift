/// The statements and value conversions of `DatabaseCopy`: pure functions of a table's shape.
enum CopySQL {
    /// `name` as an SQL identifier: in double quotes, a quote inside doubled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The next page of `table` after the row whose key was bound (`afterKey`: a page follows
    /// another), `LIMIT ?` last. A rowid table pages by rowid and gives it as the first column; a
    /// `WITHOUT ROWID` table by its primary key (a row value, compared as it is ordered).
    static func page(_ table: CopyTable, afterKey: Bool) -> String {
        let columns = table.columns.map(quoted).joined(separator: ", ")
        if table.hasRowID {
            return "SELECT rowid, \(columns) FROM \(quoted(table.name))"
                + (afterKey ? " WHERE rowid > ?" : "") + " ORDER BY rowid LIMIT ?"
        }
        let key = table.primaryKey.map(quoted).joined(separator: ", ")
        return "SELECT \(columns) FROM \(quoted(table.name))"
            + (afterKey ? " WHERE (\(key)) > (\(sqlPlaceholders(table.primaryKey.count)))" : "") + " ORDER BY \(key) LIMIT ?"
    }

    /// The values that follow `row` (a row of `page`) in the next page's `WHERE`.
    static func key(of row: Row, in table: CopyTable) -> [SQLValue] {
        if table.hasRowID { return [row.values[0]] }
        return table.primaryKey.compactMap { column in table.columns.firstIndex(of: column).map { row.values[$0] } }
    }

    /// The table's own values of a row of `page` (without the rowid).
    static func values(of row: Row, in table: CopyTable) -> ArraySlice<SQLValue> {
        table.hasRowID ? row.values.dropFirst() : row.values[...]
    }

    /// `INSERT INTO "t" ("a", "b") VALUES (?, ?), (?, ?)…` for `rows` rows.
    static func insert(_ table: CopyTable, rows: Int) -> String {
        let columns = table.columns.map(quoted).joined(separator: ", ")
        let row = "(" + sqlPlaceholders(table.columns.count) + ")"
        return "INSERT INTO \(quoted(table.name)) (\(columns)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Rows per INSERT: `limit`, fewer for a wide table (PostgreSQL binds at most 65 535 values).
    static func batchRows(columns: Int, limit: Int) -> Int {
        max(1, min(limit, 65_000 / max(columns, 1)))
    }
}

/// A PostgreSQL column's type as the copy binds to it. SQLite keeps any value in any column (a
/// number in a TEXT column, text in an INTEGER one); PostgreSQL binds by type, so each value is
/// made the column's type, or the copy stops naming the table, column and value.
enum CopyColumnType: Sendable, Equatable {
    case integer, real, text, blob, other(String)

    init(postgreSQL dataType: String) {
        switch dataType {
        case "bigint", "integer", "smallint": self = .integer
        case "double precision", "real", "numeric": self = .real
        case "text", "character varying", "character": self = .text
        case "bytea": self = .blob
        default: self = .other(dataType)
        }
    }

    var name: String {
        switch self {
        case .integer: "integer"
        case .real: "floating-point"
        case .text: "text"
        case .blob: "bytea"
        case .other(let type): type
        }
    }

    /// `value` as this type; nil when it cannot be without losing it. NULL stays NULL.
    func convert(_ value: SQLValue) -> SQLValue? {
        switch (self, value) {
        case (_, .null): return .null
        // PostgreSQL's text cannot hold a NUL character; SQLite's can.
        case (.text, .text(let text)): return text.utf8.contains(0) ? nil : value
        case (.integer, .integer), (.real, .real), (.blob, .blob), (.other, _): return value
        case (.integer, .real(let number)): return number.rounded() == number && abs(number) < 9.2e18 ? .integer(Int64(number)) : nil
        case (.integer, .text(let text)): return Int64(text).map(SQLValue.integer)
        case (.real, .integer(let number)): return .real(Double(number))
        case (.real, .text(let text)): return Double(text).map(SQLValue.real)
        case (.text, .integer(let number)): return .text(String(number))
        case (.text, .real(let number)): return .text(String(number))
        case (.text, .blob(let bytes)): return bytes.contains(0) ? nil : String(validating: bytes, as: UTF8.self).map(SQLValue.text)
        case (.blob, .text(let text)): return .blob(Array(text.utf8))
        default: return nil
        }
    }
}

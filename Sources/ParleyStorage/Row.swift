/// One row of a result, its columns by name.
public struct Row: Sendable {
    let columns: ColumnNames
    let values: [SQLValue]

    /// The value of `column`, as `type` (an optional type reads NULL as nil).
    public func decode<T: SQLDecodable>(column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.position(of: column) else { throw StorageError.noSuchColumn(column) }
        do {
            return try T(sqlValue: values[index])
        } catch StorageError.unexpectedNull {
            throw StorageError.nullInColumn(column)
        }
    }

    /// The value of the first column.
    public func first<T: SQLDecodable>(as type: T.Type = T.self) throws -> T {
        guard let value = values.first else { throw StorageError.noSuchColumn("#0") }
        return try T(sqlValue: value)
    }
}

/// A statement's column names, looked up once per prepared statement and shared by its rows.
final class ColumnNames: Sendable {
    /// Kept so that no other text takes their identities while these are in use.
    private let names: [String]
    private let identities: [SQLText]
    private let index: [String: Int]

    init(_ names: [String]) {
        self.names = names
        identities = names.map(SQLText.init)
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }

    /// The first column called `name`. Most names are 15 bytes or fewer, which Swift keeps inside
    /// the string: such a name is found by comparing two words a column, not by hashing it for
    /// every column of every row read; a longer one by hash.
    func position(of name: String) -> Int? {
        identities.firstIndex(of: SQLText(name)) ?? index[name]
    }
}

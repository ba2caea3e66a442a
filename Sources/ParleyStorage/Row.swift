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

/// A statement's column names, looked up once per prepared statement (SQLite) or result
/// (PostgreSQL) and shared by its rows.
final class ColumnNames: Sendable {
    /// Kept so that no other text takes their identities while these are in use.
    private let names: [String]
    private let identities: [SQLText]
    /// Names longer than Swift keeps inside a string, by hash; usually none.
    private let long: [String: Int]

    init(_ names: [String]) {
        self.names = names
        identities = names.map(SQLText.init)
        var long: [String: Int] = [:]
        for (position, name) in names.enumerated() where name.utf8.count > Self.shortBytes && long[name] == nil { long[name] = position }
        self.long = long
    }

    /// Swift keeps a string of up to 15 UTF-8 bytes inside the `String` itself.
    private static let shortBytes = 15

    /// The first column called `name`. Most names are short: two such strings with the same text
    /// have the same two words, so a short name is found by comparing words, not by hashing it for
    /// every column of every row read (a miss is checked by text); a longer one by hash.
    func position(of name: String) -> Int? {
        if let position = identities.firstIndex(of: SQLText(name)) { return position }
        return name.utf8.count > Self.shortBytes ? long[name] : names.firstIndex(of: name)
    }
}

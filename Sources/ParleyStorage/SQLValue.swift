/// A value bound to a statement or read from a row: the types SQLite and PostgreSQL share.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// What can be bound to a `?` in a statement.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

/// What a column can be read as.
public protocol SQLDecodable {
    init(sqlValue: SQLValue) throws
}

extension SQLValue: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { self }
    public init(sqlValue: SQLValue) throws { self = sqlValue }
}

extension String: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .text(self) }
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .text(let text): self = text
        case .integer(let number): self = String(number)
        case .real(let number): self = String(number)
        case .blob(let bytes): self = String(decoding: bytes, as: UTF8.self)
        case .null: throw StorageError.unexpectedNull
        }
    }
}

extension Int64: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(self) }
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .integer(let number): self = number
        case .real(let number): self = Int64(number)
        case .text(let text):
            guard let number = Int64(text) else { throw StorageError.typeMismatch(expected: "integer", found: sqlValue) }
            self = number
        case .null: throw StorageError.unexpectedNull
        case .blob: throw StorageError.typeMismatch(expected: "integer", found: sqlValue)
        }
    }
}

extension Int: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init(sqlValue: SQLValue) throws { self = Int(try Int64(sqlValue: sqlValue)) }
}

extension Bool: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public init(sqlValue: SQLValue) throws { self = try Int64(sqlValue: sqlValue) != 0 }
}

extension Double: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .real(self) }
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .real(let number): self = number
        case .integer(let number): self = Double(number)
        case .null: throw StorageError.unexpectedNull
        default: throw StorageError.typeMismatch(expected: "real", found: sqlValue)
        }
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        if case .null = sqlValue { self = nil } else { self = try Wrapped(sqlValue: sqlValue) }
    }
}

/// `?, ?, ?` for an `IN (…)` list of `count` values.
public func sqlPlaceholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}

import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One PostgreSQL connection driven by one storage thread: a statement is a blocking round trip
/// (the thread waits on PostgresNIO's future, never an event loop's thread) unless it is only
/// sent (`send`) or read with others (`runAll`); one with values is prepared once on this
/// connection (`start`); the SQL is translated by `PostgreSQLDialect` once and cached.
/// Reconnects before the next transaction if it was lost.
final class PostgreSQLConnection: @unchecked Sendable {   // handed to its thread once, used only there
    private let configuration: PostgreSQLURL
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let id: Int
    private var connection: PostgresConnection?
    private var translations: [String: String] = [:]
    private let cacheLimit = 512
    /// Statements of the open transaction sent without a wait (`send(_:_:)`), oldest first.
    private var inFlight: [(sql: String, result: EventLoopFuture<[PostgresRow]>)] = []
    /// Statements prepared on this connection, by their SQL as sent (`typedTranslation`).
    private var prepared: [String: PreparedQuery] = [:]
    private var typedTranslations: [String: String] = [:]

    init(configuration: PostgreSQLURL, id: Int, eventLoop: any EventLoop, logger: Logger) throws {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.logger = logger
        self.id = id
        try connectIfNeeded()
    }

    /// Opens the connection if it is not open (the first time, or after the server dropped it).
    func connectIfNeeded() throws {
        if let connection, !connection.isClosed { return }
        prepared = [:]   // they were the old connection's
        do {
            connection = try PostgresConnection.connect(
                on: eventLoop, configuration: configuration.connection, id: id, logger: logger
            ).wait()
        } catch let error as PSQLError {
            // PSQLError describes itself as nothing (it might carry secrets): say what went wrong.
            throw PostgreSQLError(error, sql: nil, connectingTo: configuration)
        }
    }

    /// Runs one statement and waits for its rows. Statements sent before it without a wait
    /// (`send(_:_:)`) are done by then (the connection runs them in order); if one of them failed,
    /// that failure is what this throws — it is the cause, and it stands even when this one
    /// succeeded (a `COMMIT` after a failed statement answers `ROLLBACK`, not an error).
    func run(_ sql: String, _ binds: [SQLValue]) throws -> [Row] {
        let (translated, answer) = try start(sql, binds)
        let rows: [PostgresRow]
        do {
            rows = try answer.wait()
        } catch {
            try settle()
            throw PostgreSQLError(error, sql: translated)
        }
        try settle()
        return try Self.rows(rows)
    }

    /// Runs an INSERT, UPDATE or DELETE and says how many rows it changed (the command tag,
    /// which only an unnamed statement's answer carries in PostgresNIO).
    func count(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        guard let connection else { throw StorageError.closed }
        let translated = translation(of: sql)
        let result: PostgresQueryResult
        do {
            result = try connection.query(PostgresQuery(unsafeSQL: translated, binds: Self.bindings(binds)), logger: logger).wait()
        } catch {
            try settle()
            throw PostgreSQLError(error, sql: translated)
        }
        try settle()
        return result.metadata.rows ?? 0
    }

    /// Runs `statements` with one wait: all are handed to the connection, then their answers
    /// waited for in order (the connection runs them in the order sent). PostgresNIO still puts
    /// each on the wire when the one before it is answered — a round trip each for the server,
    /// one wake-up for this thread. Throws the first failure.
    func runAll(_ statements: [SQLStatement]) throws -> [[Row]] {
        let sent = try statements.map { try start($0.sql, $0.binds) }
        var results: [[Row]] = []
        var failure: PostgreSQLError?
        for (sql, answer) in sent {
            do {
                let rows = try answer.wait()
                if failure == nil { results.append(try Self.rows(rows)) }
            } catch {
                failure = failure ?? PostgreSQLError(error, sql: sql)
            }
        }
        try settle()
        if let failure { throw failure }
        return results
    }

    /// Sends a statement of the open transaction whose result nobody reads, without waiting for
    /// it: the next statement queues behind it on the connection, so a write of several such
    /// statements costs this thread one wait, not one each (see `runAll`). Its failure is thrown by the next `run`
    /// (the transaction's `COMMIT` at the latest), and so fails the transaction.
    func send(_ sql: String, _ binds: [SQLValue]) throws {
        inFlight.append(try start(sql, binds))
    }

    /// Waits for what `send(_:_:)` sent; throws the first failure among it.
    func settle() throws {
        guard !inFlight.isEmpty else { return }
        let sent = inFlight
        inFlight.removeAll(keepingCapacity: true)
        var failure: PostgreSQLError?
        for (sql, result) in sent {
            do { _ = try result.wait() } catch { failure = failure ?? PostgreSQLError(error, sql: sql) }
        }
        if let failure { throw failure }
    }

    /// Puts a statement on the connection and returns its SQL as sent and its coming rows. A
    /// statement with values runs prepared: parsed and planned once per connection (prepared the
    /// first time with one wait), its placeholders cast to the values' types so the server
    /// reads them as the unnamed statement's declared types made it. Without values, unnamed.
    private func start(_ sql: String, _ binds: [SQLValue]) throws -> (String, EventLoopFuture<[PostgresRow]>) {
        guard let connection else { throw StorageError.closed }
        guard !binds.isEmpty else {
            let translated = translation(of: sql)
            return (translated, connection.query(PostgresQuery(unsafeSQL: translated), logger: logger).map(\.rows))
        }
        let typed = typedTranslation(of: sql, binds)
        let statement: PreparedQuery
        if let known = prepared[typed] {
            statement = known
        } else {
            if prepared.count >= cacheLimit {
                for old in prepared.values { _ = old.deallocate() }
                prepared = [:]
            }
            do { statement = try connection.prepare(query: typed).wait() } catch {
                try settle()
                throw PostgreSQLError(error, sql: typed)
            }
            prepared[typed] = statement
        }
        return (typed, statement.execute(binds.map(Self.data(of:))))
    }

    private func typedTranslation(of sql: String, _ binds: [SQLValue]) -> String {
        var key = sql
        key.append("\u{0}")
        for value in binds {
            switch value {
            case .null: key.append("n")
            case .integer: key.append("i")
            case .real: key.append("r")
            case .text: key.append("t")
            case .blob: key.append("b")
            }
        }
        if let typed = typedTranslations[key] { return typed }
        let typed = PostgreSQLDialect.translate(sql, casts: binds.map(Self.cast(of:)))
        if typedTranslations.count >= cacheLimit { typedTranslations = [:] }
        typedTranslations[key] = typed
        return typed
    }

    private static func cast(of value: SQLValue) -> String? {
        switch value {
        case .null: nil   // a NULL fits any type: the server infers it, as it did for the unnamed statement
        case .integer: "int8"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    private static func data(of value: SQLValue) -> PostgresData {
        switch value {
        case .null: .null
        case .integer(let number): PostgresData(int64: number)
        case .real(let number): PostgresData(double: number)
        case .text(let text): PostgresData(string: text)
        case .blob(let bytes): PostgresData(bytes: bytes)
        }
    }

    private static func rows(_ rows: [PostgresRow]) throws -> [Row] {
        guard let first = rows.first else { return [] }
        let columns = ColumnNames(first.map(\.columnName))
        // PostgresNIO asks for every result column in binary; a prepared statement's cells still
        // carry the format of its description (text, as PostgreSQL describes a statement before
        // it is bound), so they are read as what they are.
        return try rows.map { row in
            Row(columns: columns, values: try row.map(Self.value(ofBinary:)))
        }
    }

    private static func bindings(_ binds: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return bindings
    }

    /// Sends a statement without parameters or results and does not wait for it: the connection
    /// runs its statements in the order they are sent, so the next one queues behind it. For
    /// the bracket of a read-only transaction (`START …` pipelined with the first query, `COMMIT`
    /// left to finish while the thread takes its next job); the returned future tells how it went.
    @discardableResult
    func send(_ sql: String) -> EventLoopFuture<PostgresQueryResult>? {
        connection?.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// Runs each statement of `script` (split at its semicolons) without parameters.
    func execute(script: String) throws {
        guard let connection else { throw StorageError.closed }
        for statement in PostgreSQLDialect.statements(ofScript: script) {
            do {
                _ = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
            } catch let error as PSQLError {
                throw PostgreSQLError(error, sql: statement)
            }
        }
    }

    func close() {
        try? connection?.close().wait()
        connection = nil
    }

    private func translation(of sql: String) -> String {
        if let translated = translations[sql] { return translated }
        let translated = PostgreSQLDialect.translate(sql)
        if translations.count >= cacheLimit { translations = [:] }
        translations[sql] = translated
        return translated
    }

    /// A result cell in binary, as every result is sent whatever its `format` says: the types
    /// most cells are (text, integers, booleans) read from the bytes as they are — a generic
    /// `decode` costs several copies of the cell a column — the others by `value(of:)`.
    static func value(ofBinary cell: PostgresCell) throws -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
        let at = bytes.readerIndex
        switch (cell.dataType, bytes.readableBytes) {
        case (.text, _), (.varchar, _): return .text(String(buffer: bytes))
        case (.int8, 8): if let number = bytes.getInteger(at: at, as: Int64.self) { return .integer(number) }
        case (.int4, 4): if let number = bytes.getInteger(at: at, as: Int32.self) { return .integer(Int64(number)) }
        case (.int2, 2): if let number = bytes.getInteger(at: at, as: Int16.self) { return .integer(Int64(number)) }
        case (.bool, 1): if let flag = bytes.getInteger(at: at, as: UInt8.self) { return .integer(flag != 0 ? 1 : 0) }
        default: break
        }
        var cell = cell
        cell.format = .binary
        return try value(of: cell)
    }

    /// A result cell as one of the values both engines share: integers (and booleans, as 0 or 1)
    /// as `.integer`, NUMERIC (what `SUM` of integers gives) as an integer when it is whole.
    static func value(of cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: return .blob(Array((try cell.decode(ByteBuffer.self)).readableBytesView))
        case .numeric:
            let text = "\(try cell.decode(Decimal.self))"
            if let whole = Int64(text) { return .integer(whole) }
            return .real(Double(text) ?? .nan)
        case .void: return .null
        default: return .text(try cell.decode(String.self))
        }
    }
}

/// An error PostgreSQL answered with (or the connection's own failure), with its SQLSTATE.
public struct PostgreSQLError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE ("23505" for a unique violation), empty when the server said nothing.
    public let sqlState: String
    public let message: String
    public let sql: String?

    init(_ error: PSQLError, sql: String?, connectingTo server: PostgreSQLURL? = nil) {
        sqlState = error.serverInfo?[.sqlState] ?? ""
        var message = error.serverInfo?[.message] ?? "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        if let server { message = "cannot connect to \(server.description): " + message }
        self.message = message
        self.sql = sql
    }

    /// Any failure of a statement: PostgresNIO's own (`PSQLError`), the error its prepared-query
    /// API answers with (`PostgresError`), or whatever else stopped it.
    init(_ error: any Error, sql: String?) {
        switch error {
        case let error as PostgreSQLError:
            self = error
        case let error as PSQLError:
            self.init(error, sql: sql, connectingTo: nil)
        case PostgresError.server(let answer):
            self.init(sqlState: answer.fields[.sqlState] ?? "", message: answer.fields[.message] ?? "\(answer)", sql: sql)
        default:
            self.init(sqlState: "", message: "\(error)", sql: sql)
        }
    }

    private init(sqlState: String, message: String, sql: String?) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// Class 23: a UNIQUE, NOT NULL, FOREIGN KEY or CHECK constraint failed.
    public var isConstraintViolation: Bool { sqlState.hasPrefix("23") }
    /// 40001 / 40P01: the transaction lost a serialization race or a deadlock; it may be retried.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        "PostgreSQL error" + (sqlState.isEmpty ? "" : " \(sqlState)") + ": \(message)" + (sql.map { " in \($0)" } ?? "")
    }
}

extension PostgreSQLConnection: StatementRunner {}

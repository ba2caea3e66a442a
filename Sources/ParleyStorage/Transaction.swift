/// Runs one statement for a handle: an SQLite connection now, a PostgreSQL connection (behind
/// a blocking call on the engine's own thread) later.
protocol StatementRunner: AnyObject {
    func run(_ sql: String, _ binds: [SQLValue]) throws -> [Row]
    /// Runs a statement whose result is not read: at once (SQLite), or sent without waiting for
    /// it, its failure thrown by the next statement that waits (PostgreSQL).
    func send(_ sql: String, _ binds: [SQLValue]) throws
    /// Runs the statements in turn and returns each one's rows: on PostgreSQL all are handed to
    /// the connection before the first answer is waited for (one wait; see `PostgreSQLConnection`).
    func runAll(_ statements: [SQLStatement]) throws -> [[Row]]
    func execute(script: String) throws
    /// Runs an INSERT, UPDATE, DELETE or DDL statement and says how many rows it changed.
    func count(_ sql: String, _ binds: [SQLValue]) throws -> Int
}

extension SQLiteConnection: StatementRunner {
    func send(_ sql: String, _ binds: [SQLValue]) throws { _ = try run(sql, binds) }
    func count(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        _ = try run(sql, binds)
        return changes
    }
    func runAll(_ statements: [SQLStatement]) throws -> [[Row]] { try statements.map { try run($0.sql, $0.binds) } }
}

/// A statement and the values for its `?`s, for running several at once (`query(each:)`).
public struct SQLStatement: Sendable {
    public let sql: String
    public let binds: [SQLValue]

    public init(_ sql: String, _ binds: any SQLBindable...) {
        self.sql = sql
        self.binds = binds.map(\.sqlValue)
    }

    public init(_ sql: String, binding binds: [SQLValue]) {
        self.sql = sql
        self.binds = binds
    }
}

/// Reading through a handle. SQL is written once for every engine: `?` placeholders (an engine
/// whose driver numbers them, PostgreSQL's `$1`, rewrites them when it prepares), standard SQL
/// plus `RETURNING` and `ON CONFLICT … DO UPDATE`, which SQLite and PostgreSQL share. Where the
/// dialects differ (full-text search), the store asks `kind` and says so beside the statement.
public protocol SQLQuerying {
    /// The engine behind the handle, for the few statements that differ between dialects.
    var kind: Database.Kind { get }
    func query(_ sql: String, binding binds: [SQLValue]) throws -> [Row]
    /// Several statements that do not depend on each other's answers, each one's rows in
    /// order: on PostgreSQL the storage thread waits once for all of them, not once each.
    func query(each statements: [SQLStatement]) throws -> [[Row]]
}

extension SQLQuerying {
    /// Every row of `sql` with `binds` for its `?`s.
    public func query(_ sql: String, _ binds: any SQLBindable...) throws -> [Row] {
        try query(sql, binding: binds.map(\.sqlValue))
    }

    /// The first row, if any.
    public func first(_ sql: String, _ binds: any SQLBindable...) throws -> Row? {
        try query(sql, binding: binds.map(\.sqlValue)).first
    }

    /// The first column of the first row, if there is a row.
    public func scalar<T: SQLDecodable>(_ sql: String, _ binds: any SQLBindable..., as type: T.Type = T.self) throws -> T? {
        try query(sql, binding: binds.map(\.sqlValue)).first.map { try $0.first(as: T.self) }
    }
}

/// The handle to one open write transaction, given to the closure of `Database.write` and valid
/// only while it runs. Its statements are synchronous: the closure runs on the engine's writer,
/// so it cannot await — which makes starting another transaction inside it (a deadlock with one
/// writer) a compile error. Not `Sendable`: it cannot leave the closure for another task.
public final class Transaction: SQLQuerying {
    public let kind: Database.Kind
    private let runner: any StatementRunner
    private var isOpen = true
    private(set) var afterCommitActions: [@Sendable () -> Void] = []
    /// `Database.writeAutocommit`: statements other than a SELECT it has let through. Nil: any
    /// number (a transaction commits them together).
    private var changes: Int?

    init(kind: Database.Kind, runner: any StatementRunner) {
        self.kind = kind
        self.runner = runner
    }

    public func query(_ sql: String, binding binds: [SQLValue]) throws -> [Row] {
        try admit(sql)
        return try runner.run(sql, binds)
    }

    public func query(each statements: [SQLStatement]) throws -> [[Row]] {
        for statement in statements { try admit(statement.sql) }
        return try runner.runAll(statements)
    }

    /// Runs an INSERT, UPDATE, DELETE or DDL statement; returns how many rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ binds: any SQLBindable...) throws -> Int {
        try admit(sql)
        return try runner.count(sql, binds.map(\.sqlValue))
    }

    /// `execute` with the values as a list (statements built at run time: a batch of rows).
    @discardableResult
    public func execute(_ sql: String, binding binds: [SQLValue]) throws -> Int {
        try admit(sql)
        return try runner.count(sql, binds)
    }

    /// Runs an INSERT, UPDATE or DELETE whose outcome the closure does not read — a row that
    /// is simply written. On PostgreSQL it is sent without waiting for its answer, so several in
    /// a row cost the storage thread one wait; if it fails, the next statement that waits (the commit at the
    /// latest) throws its error and the transaction fails as a whole. On SQLite it runs at once.
    /// Not for a statement whose error the closure means to catch (a unique key it tries).
    public func send(_ sql: String, _ binds: any SQLBindable...) throws {
        try admit(sql)
        try runner.send(sql, binds.map(\.sqlValue))
    }

    /// `send` with the values as a list.
    public func send(_ sql: String, binding binds: [SQLValue]) throws {
        try admit(sql)
        try runner.send(sql, binds)
    }

    /// Runs several statements without parameters or results (a schema, a fixture); not cached.
    public func execute(script: String) throws {
        guard isOpen else { throw StorageError.closed }
        guard changes == nil else { throw StorageError.secondChange(script) }
        try runner.execute(script: script)
    }

    /// Runs `action` once this transaction has committed (in the task that asked for the write,
    /// after the commit and before `write` returns); never if it rolls back.
    public func afterCommit(_ action: @escaping @Sendable () -> Void) {
        afterCommitActions.append(action)
    }

    func close() { isOpen = false }

    /// From here on, at most one statement that is not a SELECT (`Database.writeAutocommit`:
    /// on PostgreSQL each commits alone, so a second could leave the first committed without it).
    func allowOneChange() { changes = 0 }

    /// Throws if the transaction is over, or if `sql` would be a second change where only one may be.
    private func admit(_ sql: String) throws {
        guard isOpen else { throw StorageError.closed }
        guard let count = changes, !Self.isSelect(sql) else { return }
        guard count == 0 else { throw StorageError.secondChange(sql) }
        changes = 1
    }

    /// Whether the statement starts with SELECT (after blanks): it reads only. Anything else —
    /// WITH too, which may hold an INSERT or UPDATE — counts as a change.
    static func isSelect(_ sql: String) -> Bool {
        var keyword = sql.utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }.prefix(7).makeIterator()
        for letter in "SELECT".utf8 {
            guard let byte = keyword.next(), byte & 0xDF == letter else { return false }
        }
        guard let after = keyword.next() else { return true }
        return after == 0x20 || after == 0x0A || after == 0x09 || after == 0x0D || after == 0x28   // a blank or "("
    }
}

/// The handle to one read-only snapshot, given to the closure of `Database.read` (and
/// `readLatest`): every query in the closure sees the same committed state. A `read` never waits
/// behind the writer (WAL); a `readLatest` on SQLite runs on the writer, between its commits.
public final class Snapshot: SQLQuerying {
    public let kind: Database.Kind
    private let runner: any StatementRunner
    private var isOpen = true

    init(kind: Database.Kind, runner: any StatementRunner) {
        self.kind = kind
        self.runner = runner
    }

    public func query(_ sql: String, binding binds: [SQLValue]) throws -> [Row] {
        guard isOpen else { throw StorageError.closed }
        return try runner.run(sql, binds)
    }

    public func query(each statements: [SQLStatement]) throws -> [[Row]] {
        guard isOpen else { throw StorageError.closed }
        return try runner.runAll(statements)
    }

    func close() { isOpen = false }
}

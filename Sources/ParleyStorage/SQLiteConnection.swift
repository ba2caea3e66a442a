import CParleySQLite
import CSQLite3

/// One SQLite connection, used by one thread at a time (its worker's), with its prepared
/// statements cached by SQL text: a statement is compiled once and reset between runs.
final class SQLiteConnection: @unchecked Sendable {   // handed to its thread once, used only there
    private let handle: OpaquePointer
    private var statements: [String: PreparedStatement] = [:]
    /// The same statements by the identity of the `String` that asked for them (`SQLText`): the
    /// SQL of a store is a literal or text written once and kept, so the next run asks with the
    /// same string, and finding it costs a hash of 16 bytes, not of the whole text (hashing the
    /// text was ~4 % of the writer's time at 5 000 messages a second).
    private var statementsByIdentity: [SQLText: (sql: String, statement: PreparedStatement)] = [:]
    /// Statements built for variable `IN (…)` lists would grow the cache without end.
    private let cacheLimit = 512
    /// Text built anew for every run (an `IN (…)` list) is a new string each time: its identities
    /// are forgotten past this many; its statement stays cached by text.
    private let identityLimit = 1_024
    /// While set, a statement that would change the database is refused before it runs (the
    /// writer's connection answering reads: `SQLiteEngine.runReads`). A check of each statement,
    /// not `PRAGMA query_only`: setting a flag pragma expires every prepared statement of the
    /// connection, and each would be compiled again after every round of reads.
    var refusesWrites = false
    /// Set when a statement that changes the database (by SQLite's own account,
    /// `sqlite3_stmt_readonly`) or a script runs; cleared by the writer before each job of a
    /// batch, to tell a job that failed before changing anything from one that changed something.
    var hasWritten = false

    /// Set once, before the first connection opens (SQLite takes settings only before it starts):
    /// no memory statistics — kept, they take a process-wide lock around every allocation, which
    /// every connection on every thread makes per statement (nothing reads them); and Parley's
    /// wrapper around SQLite's page cache, so that a commit does not walk every cached page
    /// (Sources/CParleySQLite/PageCache.c).
    private static let configured: Void = {
        _ = parley_sqlite3_count_memory(0)
        _ = parley_sqlite3_install_page_cache()
        _ = parley_sqlite3_register_wal_vfs()
    }()

    /// Every connection opens through Parley's VFS (Sources/CParleySQLite/WALWrites.c), which hands
    /// a transaction's WAL frames to the kernel in one write instead of two system calls a frame;
    /// nil (SQLite's default) if it could not be registered.
    private static let vfs: String? = {
        _ = configured
        return sqlite3_vfs_find(PARLEY_WAL_VFS) != nil ? PARLEY_WAL_VFS : nil
    }()

    struct PreparedStatement {
        let pointer: OpaquePointer
        let columns: ColumnNames
    }

    /// Opens (creating if needed) the file; `readOnly` opens an existing one that this connection
    /// cannot change (SQLite refuses every write on it).
    init(path: String, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, Self.vfs)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message, sql: nil)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    /// Runs statements without parameters or results (pragmas, DDL), several at once allowed.
    func execute(script: String) throws {
        if refusesWrites { throw SQLiteError(code: SQLITE_READONLY, message: "a read may not run a script", sql: script) }
        hasWritten = true
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, script, nil, nil, &error)
        if code != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError(code: code, message: message, sql: script)
        }
    }

    /// Runs one statement with `binds` for its `?`s and returns its rows.
    func run(_ sql: String, _ binds: [SQLValue]) throws -> [Row] {
        let statement = try prepared(sql)
        let pointer = statement.pointer
        if sqlite3_stmt_readonly(pointer) == 0 {
            if refusesWrites { throw SQLiteError(code: SQLITE_READONLY, message: "a read may not change the database", sql: sql) }
            hasWritten = true
        }
        defer {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
        }
        for (offset, value) in binds.enumerated() {
            try bind(value, at: Int32(offset + 1), in: pointer, sql: sql)
        }
        var rows: [Row] = []
        while true {
            let code = sqlite3_step(pointer)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw error(code, sql) }
            let count = sqlite3_column_count(pointer)
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for column in 0..<count { values.append(value(of: pointer, column)) }
            rows.append(Row(columns: statement.columns, values: values))
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// False inside a transaction: SQLite rolled one back by itself when this turns true mid-way.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The WAL's frames after this connection's last commit, from SQLite's WAL hook; kept only
    /// once `trackWALFrames()` installed it.
    private(set) var walFrames = 0

    /// Installs the WAL hook that keeps `walFrames`. SQLite's own automatic checkpoint is a WAL
    /// hook too, and this one takes its place: the caller checkpoints when it sees fit.
    func trackWALFrames() {
        sqlite3_wal_hook(handle, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().walFrames = Int(frames)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// What a passive checkpoint did: whether it could not run (another was under way, or a
    /// writer's lock it needed), the WAL's frames and how many of them are now in the file (-1
    /// each when it did not run).
    struct Checkpoint {
        let busy: Bool
        let frames: Int64
        let copied: Int64
    }

    /// A passive checkpoint (`PRAGMA wal_checkpoint(PASSIVE)` without a statement and its row):
    /// copies what is committed and no reader still needs, waiting for nobody; nil on an error.
    func checkpointPassively() -> Checkpoint? {
        var frames: Int32 = -1, copied: Int32 = -1
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        guard code == SQLITE_OK || code == SQLITE_BUSY else { return nil }
        return Checkpoint(busy: code == SQLITE_BUSY, frames: Int64(frames), copied: Int64(copied))
    }

    /// Writes the database file's dirty pages to the disk (`fdatasync` through SQLite's file, so
    /// through the connection's VFS). For the checkpointer: see `SQLiteEngine.checkpointLoop`.
    func syncDatabaseFile() throws {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard found == SQLITE_OK, let file, let sync = file.pointee.pMethods?.pointee.xSync else {
            throw SQLiteError(code: found == SQLITE_OK ? SQLITE_NOTFOUND : found, message: "no database file to sync", sql: nil)
        }
        let code = sync(file, SQLITE_SYNC_NORMAL | SQLITE_SYNC_DATAONLY)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "sync of the database file failed", sql: nil) }
    }

    /// How many times SQLite compiled the cached `sql` again since it was prepared (after a
    /// schema change, or anything that expired it); nil if it is not cached.
    func recompilations(of sql: String) -> Int? {
        statements[sql].map { Int(sqlite3_stmt_status($0.pointer, SQLITE_STMTSTATUS_REPREPARE, 0)) }
    }

    /// How many strings the statement cache knows by identity (for its tests).
    var identitiesCached: Int { statementsByIdentity.count }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement.pointer) }
        statements = [:]
        statementsByIdentity = [:]
        sqlite3_close_v2(handle)
    }

    private func prepared(_ sql: String) throws -> PreparedStatement {
        let identity = SQLText(sql)
        // The entry keeps its string, so no other text can take that identity while it is cached;
        // the comparison of two strings with one identity returns at once.
        if let known = statementsByIdentity[identity], known.sql == sql { return known.statement }
        let statement = try preparedByText(sql)
        if statementsByIdentity.count >= identityLimit { statementsByIdentity = [:] }
        statementsByIdentity[identity] = (sql, statement)
        return statement
    }

    private func preparedByText(_ sql: String) throws -> PreparedStatement {
        if let statement = statements[sql] { return statement }
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else { throw error(code, sql) }
        let names = (0..<sqlite3_column_count(pointer)).map { String(cString: sqlite3_column_name(pointer, $0)) }
        let statement = PreparedStatement(pointer: pointer, columns: ColumnNames(names))
        if statements.count >= cacheLimit {
            for old in statements.values { sqlite3_finalize(old.pointer) }
            statements = [:]
            statementsByIdentity = [:]
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: SQLValue, at index: Int32, in pointer: OpaquePointer, sql: String) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(pointer, index)
        case .integer(let number): code = sqlite3_bind_int64(pointer, index, number)
        case .real(let number): code = sqlite3_bind_double(pointer, index, number)
        case .text(let text):
            var text = text
            code = text.withUTF8 { bytes in
                sqlite3_bind_text(pointer, index, UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(pointer, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(raw.count), Self.transient)
            }
        }
        guard code == SQLITE_OK else { throw error(code, sql) }
    }

    private func value(of pointer: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(pointer, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(pointer, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(pointer, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(pointer, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(pointer, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(pointer, column))
            guard let bytes = sqlite3_column_blob(pointer, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func error(_ code: Int32, _ sql: String) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A string's identity: the two words of the `String` value. A literal's are the address and
/// length of its bytes in the binary, a short string's (up to 15 bytes) are its bytes, and any
/// other's hold the address of its storage — equal only for the same text while the string lives.
struct SQLText: Hashable {
    private let first: UInt64
    private let second: UInt64

    init(_ text: String) {
        (first, second) = unsafeBitCast(text, to: (UInt64, UInt64).self)
    }
}

import Foundation
import Logging
import ParleyCore

/// The storage every domain talks to, and the seam between the domains and an engine. Work is a
/// closure over a handle: `write` gives a `Transaction` (committed if the closure returns, rolled
/// back if it throws), `read` a `Snapshot`. The closures are synchronous — they run on the
/// engine's own threads, a whole transaction in one hop — so a transaction cannot await another
/// (nesting is a compile error), and stores keep no engine types of their own.
///
/// SQLite today: one writer connection on its own thread, with group commit — transactions that
/// queue while one commits share the next COMMIT, one that throws undone alone (see
/// `SQLiteEngine.commit`), and every caller is answered only after the commit that holds its work
/// (WAL, synchronous=NORMAL: what is acknowledged survives the process being killed); read-only
/// connections beside it for `read`.
/// PostgreSQL (`openPostgreSQL`, `database.url`) behind the same two calls: each closure on a
/// thread of a pool that owns one connection each, statements as blocking round trips — except
/// those only `send` (not waited for) and those read together (`query(each:)`, one round trip) —
/// prepared once per connection, the SQL translated by `PostgreSQLDialect` (`?` numbered and
/// typed, DDL types; see `SQLQuerying` for the SQL both dialects share).
public final class Database: Sendable {
    public enum Kind: String, Sendable { case sqlite, postgresql }

    public let kind: Kind
    private let engine: any StorageEngine
    /// Wake-ups between nodes (PostgreSQL only).
    private let signals: PostgreSQLSignals?

    private init(kind: Kind, engine: any StorageEngine, signals: PostgreSQLSignals? = nil) {
        self.kind = kind
        self.engine = engine
        self.signals = signals
    }

    /// Opens (creating if needed) an SQLite database file with WAL journaling and foreign keys on,
    /// one writer and `readers` read-only connections. `writerNice`: the writer thread's nice value
    /// (negative: ahead of the process's other threads when the cores are all busy; see
    /// `SQLiteEngine.raisePriority`), 0 leaves it as the process's.
    public static func openSQLite(path: String, readers: Int = 2, writerNice: Int = 0, logger: Logger) async throws -> Database {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        return Database(kind: .sqlite, engine: try SQLiteEngine(path: path, readers: readers, writerNice: writerNice, logger: logger))
    }

    /// Opens an existing SQLite database file for reading only (`write` fails with
    /// `StorageError.closed`): what `parley migrate-data` copies from, never changed by it.
    public static func openSQLiteReadOnly(path: String, logger: Logger) async throws -> Database {
        guard FileManager.default.fileExists(atPath: path) else { throw StorageError.noDatabaseFile(path) }
        return Database(kind: .sqlite, engine: try SQLiteEngine(path: path, readers: 1, readOnly: true, logger: logger))
    }

    /// Connects to PostgreSQL at `url` with `url.pool` connections, each on a thread of its own.
    public static func openPostgreSQL(url: PostgreSQLURL, logger: Logger) async throws -> Database {
        Database(kind: .postgresql, engine: try await PostgreSQLEngine.open(url: url, logger: logger),
                 signals: PostgreSQLSignals(url: url, logger: logger))
    }

    /// Sends `payload` to every node listening on `channel` (PostgreSQL's `pg_notify`, on a
    /// connection of its own: call it after the commit, never inside a transaction). Nothing on SQLite.
    public func notify(_ channel: String, payload: String) async throws {
        try await notify(channel, payloads: [payload])
    }

    /// Sends each of `payloads`, in their order, in one transaction: one commit under the
    /// server's notify lock, and one wake-up of each listening node, for them all.
    public func notify(_ channel: String, payloads: [String]) async throws {
        guard !payloads.isEmpty else { return }
        try await signals?.notify(channel, payloads: payloads)
    }

    /// Calls `handler` with every payload sent on `channel` from now on (PostgreSQL's `LISTEN`).
    /// Nothing on SQLite, where one process is the only node.
    /// If the listening connection drops, a new one listens again and `reconnected` is called:
    /// what was sent meanwhile was missed, and the listener reads it from the tables.
    public func listen(_ channel: String, reconnected: (@Sendable () -> Void)? = nil,
                       _ handler: @escaping @Sendable (String) -> Void) async throws {
        try await signals?.listen(channel, handler, reconnected: reconnected)
    }

    /// Runs `body` in a write transaction: committed if it returns, rolled back if it throws.
    /// Returns once the commit that holds the work is done, after running the transaction's
    /// `afterCommit` actions.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        let (value, actions) = try await engine.write(body)
        for action in actions { action() }
        return value
    }

    /// `write` for a closure that reads, then changes the database with at most one statement:
    /// on PostgreSQL without `BEGIN` and `COMMIT` — each statement commits on its own as it
    /// finishes, two round trips fewer — so no failure can leave part of the change committed.
    /// Its reads see what was committed when each ran, as `write`'s do at READ COMMITTED. On
    /// SQLite it is `write`. Returns after the change is committed and the `afterCommit` actions
    /// ran; on PostgreSQL a throw after the change (while reading its answer) leaves it committed
    /// and its `afterCommit` actions not run.
    public func writeAutocommit<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        let (value, actions) = try await engine.writeAutocommit { transaction in
            // Held to its word where it matters: a second change throws `StorageError.secondChange`
            // before it runs. SQLite commits the closure's statements together, as `write` does.
            if transaction.kind == .postgresql { transaction.allowOneChange() }
            return try body(transaction)
        }
        for action in actions { action() }
        return value
    }

    /// `read` for a closure of one statement (one statement sees one snapshot by itself): on
    /// PostgreSQL without a transaction around it — one round trip, not three. On SQLite `read`.
    /// For the small reads of hot paths (a session looked up for every authenticated request).
    public func readAutocommit<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await engine.readAutocommit(body)
    }

    /// Runs `body` on a read-only snapshot of the last commit.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await engine.read(body)
    }

    /// Runs `body` on a snapshot of everything committed so far, where the database's pages are
    /// warm: on SQLite the writer's own connection, between two of its commits (a reader's page
    /// cache starts over after every commit); on PostgreSQL the same as `read`. For the few small
    /// reads of a hot path (what sending a message reads); anything long belongs in `read`,
    /// since the writes wait while it runs.
    public func readLatest<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await engine.readLatest(body)
    }

    /// True when a trivial query answers (for /health and /admin/status).
    public func ping() async -> Bool {
        (try? await read { try $0.scalar("SELECT 1", as: Int.self) }) == 1
    }

    /// Finishes the work already queued, then closes every connection.
    public func close() async throws {
        await signals?.close()
        await engine.close()
    }
}

import Foundation
import Synchronization
import Logging

/// The engine behind `Database`: SQLite with one writer connection on a thread of its own and
/// read-only connections on threads beside it (WAL: readers see the last commit and never wait
/// for the writer). A PostgreSQL engine would give the same two calls over a pool of connections.
protocol StorageEngine: Sendable {
    func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> (T, [@Sendable () -> Void])
    func read<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T
    /// A read of everything committed so far, where the pages are warm (see `Database.readLatest`).
    func readLatest<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T
    /// A read of one statement, without a transaction around it (see `Database.readAutocommit`).
    func readAutocommit<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T
    /// A write whose statements each commit on their own (see `Database.writeAutocommit`).
    func writeAutocommit<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> (T, [@Sendable () -> Void])
    func close() async
}

extension StorageEngine {
    func readAutocommit<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await read(body)
    }

    func writeAutocommit<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> (T, [@Sendable () -> Void]) {
        try await write(body)
    }

    func readLatest<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await read(body)
    }
}

/// What the writer thread runs for one caller: its closure, then (after the commit that holds
/// its work, or the rollback) its answer.
struct WriteJob {
    let run: (Transaction) throws -> Void
    let finish: (Result<Void, any Error>) -> Void
    /// False: the statements commit one by one, without `BEGIN` and `COMMIT` around them
    /// (`Database.writeAutocommit`, PostgreSQL).
    var bracketed = true
}

struct ReadJob {
    let run: (Snapshot) -> Void
    /// False: its one statement runs alone, without a transaction around it (`Database.readAutocommit`, PostgreSQL).
    var bracketed = true
}

/// What the SQLite writer thread takes: a caller's write, or a read run on its connection
/// between two commits.
enum WriterJob {
    case write(WriteJob)
    case read(ReadJob)
}

/// A value handed from a storage thread back to the awaiting task.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
    var actions: [@Sendable () -> Void] = []
}

final class SQLiteEngine: StorageEngine {
    private let writes = WorkQueue<WriterJob>()
    private let reads = WorkQueue<ReadJob>()
    private let checkpoints = WorkQueue<Void>()
    /// False when opened read-only: `readLatest` goes to the readers.
    private let hasWriter: Bool
    private let exits: ThreadExits
    /// How often the checkpointer copies the WAL's committed pages into the database file: every
    /// `busyCheckpointInterval` while the WAL grows fast (by `busyCheckpointFrames` or more since
    /// the last look), every `checkpointInterval` while it grows at all, every
    /// `idleCheckpointInterval` when it did not. Each checkpoint syncs the WAL and the file:
    /// under a heavy write load small and often keeps the disk's queue short, and the writer's
    /// own writes (into pages of the WAL a sync is writing out) wait little — at 4 000 messages a
    /// second, every 0.1 s left the writer blocked on the disk 30 % of the time and the
    /// acknowledgement p99 at 73 ms; every 0.02 s, 48 ms. A trickle of writes is not synced
    /// fifty times a second for it.
    static let busyCheckpointInterval: TimeInterval = 0.02
    static let busyCheckpointFrames: Int64 = 256
    static let checkpointInterval: TimeInterval = 0.1
    static let idleCheckpointInterval: TimeInterval = 0.25
    /// The writer's own checkpoint, past this many WAL pages (512 MiB of 4 KiB pages): by then the
    /// checkpointer has copied all but the last few hundredths of a second, so it copies little —
    /// and, the writer being the only one that appends, it completes and the next transaction
    /// starts the WAL over. It still holds the writer for two syncs and that copy (~8–27 ms), so
    /// it should come seldom: a busy chat writes ~150 MB of WAL a second (a message changes ~8
    /// pages), and at 32 000 pages it came every second — at 5 000 messages a second p99 35–127
    /// ms across five runs, against 30–52 ms at this size. The WAL's file keeps its largest size
    /// until the database closes; a quiet server's WAL starts over long before.
    ///
    /// It runs between batches (never inside a commit, whose callers would wait for it), right
    /// after a checkpointer pass has ended (`CheckpointerPasses`), when the least is left to copy
    /// and sync; once the WAL is a quarter of this past the point where it became due, whenever
    /// it can.
    static let writerCheckpointPages = 131_072
    /// A writer's checkpoint that could not finish (a reader still on an old snapshot) is tried
    /// again after this many more pages, not after every batch.
    static let writerCheckpointRetryPages = 8_192
    /// How recent a checkpointer pass counts as "just ended" for the writer's checkpoint.
    static let freshPassNanoseconds: UInt64 = 5_000_000
    /// Group commit: at most this many callers' transactions share one COMMIT.
    static let batchLimit = 256
    /// The writer's page cache, in KiB (SQLite's default is 2 MiB). What a busy chat's writes
    /// touch — every recipient's newest page of the event log, every dialog's newest page of its
    /// messages' indexes, and the interior pages above them — outgrows 2 MiB as the tables grow,
    /// and then every commit reads pages back from the file that it wrote moments before.
    static let writerCacheKiB = 64 * 1024

    /// Opens the writer (creating the file, WAL, foreign keys) and `readers` read-only connections;
    /// `readOnly`: the readers alone, over a file that must exist (every `write` throws).
    /// `writerNice`: the writer thread's nice value (`Database.openSQLite`); 0 leaves it as the process's.
    init(path: String, readers: Int, readOnly: Bool = false, writerNice: Int = 0, logger: Logger) throws {
        var writer: SQLiteConnection?, checkpointer: SQLiteConnection?
        var readerConnections: [SQLiteConnection] = []
        do {
            if !readOnly {
                let connection = try SQLiteConnection(path: path)
                writer = connection
                // The copying of the WAL into the file happens beside the writer (SQLite's default
                // runs a whole checkpoint, with its syncs, in the commit that passes 1 000 WAL
                // pages — every ~0.1 s of a busy chat, and every caller of that batch waits). The
                // writer still checkpoints, rarely and little, between batches (`writeLoop`): a
                // checkpointer beside a writer that never pauses never catches up with it, and the
                // WAL only starts over after a checkpoint that copied all of it (without the
                // writer's it grew by ~85 MB a second at 5 000 messages a second). SQLite's own
                // automatic checkpoint is off: `trackWALFrames()` installs the WAL hook in its place.
                // Its savepoints' and statements' journals in memory (`temp_store`): each keeps the
                // first copy of every page its savepoint or multi-row statement changes; in a
                // temporary file (SQLite's default past 64 KiB) that was a `pwrite` per page, when
                // every job of a batch ran in a savepoint four for each write into the WAL and 15 %
                // of the writer's time at 4 000 messages a second.
                try connection.execute(script: """
                    PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000;
                    PRAGMA cache_size=-\(Self.writerCacheKiB);
                    PRAGMA temp_store=MEMORY;
                    """)
                checkpointer = try SQLiteConnection(path: path)
                try checkpointer?.execute(script: "PRAGMA busy_timeout=5000; PRAGMA synchronous=NORMAL;")
            }
            for _ in 0..<max(readers, 1) {
                let reader = try SQLiteConnection(path: path, readOnly: readOnly)
                readerConnections.append(reader)
                try reader.execute(script: "PRAGMA busy_timeout=5000; PRAGMA query_only=1;")
            }
        } catch {
            writer?.close()
            checkpointer?.close()
            readerConnections.forEach { $0.close() }
            throw error
        }
        exits = ThreadExits(count: (writer == nil ? 0 : 2) + readerConnections.count)
        hasWriter = writer != nil
        let writes = writes, reads = reads, checkpoints = checkpoints
        if let writer, let checkpointer {
            let passes = CheckpointerPasses()
            writer.trackWALFrames()
            Self.startThread("db-writer", connection: writer, exits: exits) { connection in
                Self.raisePriority(to: writerNice, logger: logger)
                Self.writeLoop(connection, writes, passes, logger: logger)
            }
            Self.startThread("db-checkpoint", connection: checkpointer, exits: exits) {
                Self.checkpointLoop($0, checkpoints, passes, logger: logger)
            }
        } else {
            writes.stop()   // nothing takes writes: `write` answers `StorageError.closed` at once
        }
        for (number, reader) in readerConnections.enumerated() {
            Self.startThread("db-reader-\(number)", connection: reader, exits: exits) { Self.readLoop($0, reads) }
        }
    }

    /// A thread that owns `connection`: runs `loop` with it, then closes it.
    private static func startThread(
        _ name: String, connection: SQLiteConnection, exits: ThreadExits, loop: @escaping @Sendable (SQLiteConnection) -> Void
    ) {
        let thread = Thread {
            Thread.current.name = name   // set from the thread itself, Linux names it (15 bytes at most)
            loop(connection)
            connection.close()
            exits.exited()
        }
        thread.start()
    }

    /// Sets the calling thread's nice value (Linux: a thread's own, `who` 0 of `PRIO_PROCESS`).
    /// The writer is the one thread every write waits for; when the machine's cores are all
    /// busy, the scheduler shares them evenly among the threads that can run, and the writer's
    /// queue (every caller's acknowledgement) grows while it waits its turn behind the threads
    /// that encode and send. A negative value needs root or `CAP_SYS_NICE` (systemd: `LimitNICE=`
    /// or `AmbientCapabilities=CAP_SYS_NICE`); without it the thread keeps the process's and this
    /// says so once.
    private static func raisePriority(to nice: Int, logger: Logger) {
        guard nice != 0 else { return }
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(nice)) != 0 {
            let reason = String(cString: strerror(errno))
            logger.notice("storage writer thread keeps the process's priority", metadata: [
                "nice": "\(nice)", "error": "\(reason)",
                "hint": "needs root or CAP_SYS_NICE; database.writerNice 0 turns this off",
            ])
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> (T, [@Sendable () -> Void]) {
        let box = ResultBox<T>()
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let job = WriteJob(
                run: { transaction in
                    box.value = try body(transaction)
                    box.actions = transaction.afterCommitActions
                },
                finish: { continuation.resume(with: $0) })
            if !writes.submit(.write(job)) { continuation.resume(throwing: StorageError.closed) }
        }
        return (box.value!, box.actions)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
            let job = ReadJob { snapshot in continuation.resume(with: Result { try body(snapshot) }) }
            if !reads.submit(job) { continuation.resume(throwing: StorageError.closed) }
        }
    }

    /// On the writer's connection, before its next batch: it has seen every commit (it made them)
    /// and its page cache stays warm, where a reader's is emptied by every commit it had not seen
    /// (WAL: a reader cannot tell which pages changed) and each page is read again from the file.
    /// For the small reads of a hot path; a long one holds up every write behind it.
    func readLatest<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        guard hasWriter else { return try await read(body) }
        return try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
            let job = ReadJob { snapshot in continuation.resume(with: Result { try body(snapshot) }) }
            if !writes.submit(.read(job)) { continuation.resume(throwing: StorageError.closed) }
        }
    }

    /// Lets queued work finish, then closes every connection.
    func close() async {
        writes.stop()
        reads.stop()
        checkpoints.stop()
        let exits = exits
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                exits.waitForAll()
                continuation.resume()
            }.start()
        }
    }

    // MARK: The writer thread

    private static func writeLoop(_ connection: SQLiteConnection, _ queue: WorkQueue<WriterJob>, _ passes: CheckpointerPasses,
                                  logger: Logger) {
        var schedule = WriterCheckpointSchedule(pages: writerCheckpointPages, retryPages: writerCheckpointRetryPages)
        var report = WriterCheckpointReport()
        while let taken = queue.takeAll(limit: batchLimit) {
            var reads: [ReadJob] = [], batch: [WriteJob] = []
            for job in taken {
                switch job {
                case .read(let read): reads.append(read)
                case .write(let write): batch.append(write)
                }
            }
            // The reads first, outside the batch's transaction: they see the last commit and
            // nothing of a batch that might still roll back. None of them waited on these writes
            // (a caller is answered only after the commit that holds its work).
            if !reads.isEmpty { runReads(reads, on: connection) }
            if !batch.isEmpty { commit(batch, on: connection) }
            // The writer's own checkpoint (see `writerCheckpointPages`), after the batch's
            // callers have their answers.
            if connection.isAutocommit,
               schedule.checkpointNow(frames: connection.walFrames, passJustEnded: passes.endedWithin(freshPassNanoseconds)) {
                let started = DispatchTime.now().uptimeNanoseconds
                let done = connection.checkpointPassively()
                let ended = DispatchTime.now().uptimeNanoseconds
                let outcome = WriterCheckpointReport.Outcome(
                    busy: done?.busy == false ? 0 : 1, frames: done?.frames ?? -1, copied: done?.copied ?? -1,
                    milliseconds: Int((ended &- started) / 1_000_000))
                if let line = report.line(for: outcome, now: ended) { logger.notice("\(line)") }
            }
        }
    }

    /// Reads in one read transaction on `connection`, each with the snapshot of the last commit.
    /// What a failed batch may have left open (its callers were told it failed) is undone first,
    /// never read or kept; and the connection refuses every statement that would change the
    /// database meanwhile (`refusesWrites`), since a snapshot runs whatever SQL it is given.
    static func runReads(_ reads: [ReadJob], on connection: SQLiteConnection) {
        if !connection.isAutocommit { _ = try? connection.run("ROLLBACK", []) }
        connection.refusesWrites = true
        defer { connection.refusesWrites = false }
        let began = (try? connection.run("BEGIN", [])) != nil
        for job in reads {
            let snapshot = Snapshot(kind: .sqlite, runner: connection)
            job.run(snapshot)
            snapshot.close()
        }
        if began, !connection.isAutocommit { _ = try? connection.run("ROLLBACK", []) }   // a read: nothing to keep
    }

    // MARK: The checkpointer thread

    /// A passive checkpoint, as often as the WAL grows (see `busyCheckpointInterval`): it syncs
    /// the WAL and copies what is committed and no reader still needs into the database file,
    /// never blocking the writer or a reader. The writer's own checkpoint (past
    /// `writerCheckpointPages`) copies the rest, and the WAL starts over. On close, the last
    /// connection's own checkpoint empties it.
    ///
    /// SQLite syncs the database file only in a checkpoint that reaches the WAL's end — under
    /// load, only the writer's own. Left to it, that one sync wrote out everything the passive
    /// checkpoints had copied since the last (at 4 500 messages a second, once a second, 20 → 37 ms
    /// as the file grew, with every caller of the batch waiting). So the checkpointer syncs the
    /// file after each checkpoint that copied pages, and the writer's sync finds little to write
    /// (3–15 ms).
    private static func checkpointLoop(_ connection: SQLiteConnection, _ stop: WorkQueue<Void>, _ passes: CheckpointerPasses,
                                       logger: Logger) {
        var interval = idleCheckpointInterval
        var lastFrames: Int64 = 0, lastCopied: Int64 = 0
        var syncFailing = false
        while !stop.waitForStop(timeout: interval) {
            // Busy, the WAL's frames, the frames copied so far (an error: as the last pass).
            let done = connection.checkpointPassively()
            let frames = done?.frames ?? lastFrames
            let copied = done?.copied ?? lastCopied
            // The writer was checkpointing (SQLite answers busy, and -1 for both counts): this
            // pass did nothing; the next comes as soon as a busy one would.
            if done?.busy == true || frames < 0 || copied < 0 {
                interval = busyCheckpointInterval
                continue
            }
            let restarted = frames < lastFrames
            let grown = restarted ? frames : frames - lastFrames
            if copied > (restarted ? 0 : lastCopied) {
                do {
                    try connection.syncDatabaseFile()
                    syncFailing = false
                } catch {
                    // Said once, not fifty times a second; SQLite's own checkpoints still sync.
                    if !syncFailing { logger.warning("the checkpointer could not sync the database file", metadata: ["error": "\(error)"]) }
                    syncFailing = true
                }
            }
            passes.ended()
            interval = grown >= busyCheckpointFrames ? busyCheckpointInterval : grown > 0 ? checkpointInterval : idleCheckpointInterval
            lastFrames = frames
            lastCopied = copied
        }
    }

    // MARK: The reader threads

    private static func readLoop(_ connection: SQLiteConnection, _ queue: WorkQueue<ReadJob>) {
        while let jobs = queue.takeAll(limit: 1) {
            for job in jobs {
                let snapshot = Snapshot(kind: .sqlite, runner: connection)
                _ = try? connection.run("BEGIN", [])
                job.run(snapshot)
                snapshot.close()
                if !connection.isAutocommit { _ = try? connection.run("COMMIT", []) }
            }
        }
    }
}

/// When the checkpointer's last pass ended: the writer makes its own checkpoint right after one.
final class CheckpointerPasses: Sendable {
    private let lastEnd = Atomic<UInt64>(0)

    func ended() { lastEnd.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }

    func endedWithin(_ nanoseconds: UInt64) -> Bool {
        let end = lastEnd.load(ordering: .relaxed)
        return end != 0 && DispatchTime.now().uptimeNanoseconds &- end <= nanoseconds
    }
}

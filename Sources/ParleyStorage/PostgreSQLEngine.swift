import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The engine behind `Database` on PostgreSQL: a pool of threads, each owning one connection,
/// taking whole transactions from one queue. A write is `BEGIN`, the closure's statements (each a
/// blocking round trip), `COMMIT` (an autocommit write: the statements alone); it is retried
/// (closure and all, up to three times) when the server picks it as a deadlock victim. A read is
/// a `REPEATABLE READ, READ ONLY` transaction, so every statement of the closure sees one
/// snapshot, as on SQLite (an autocommit read: its one statement alone). `BEGIN` (or a read's `START`)
/// is sent without waiting for it, ahead of the first statement, and a read's `COMMIT` too:
/// a one-statement read costs one wait, not three, and a write one less. Writes run side by side at
/// READ COMMITTED: the stores move counters with `UPDATE … RETURNING` and upserts, which take
/// the row's lock, so two nodes (or two threads) never hand out the same number.
final class PostgreSQLEngine: StorageEngine {
    enum Job {
        case write(WriteJob)
        case read(ReadJob)
    }

    private let jobs = WorkQueue<Job>()
    private let exits: ThreadExits
    static let attempts = 3

    /// Connects `url.pool` connections (failing if any cannot), then starts their threads.
    static func open(url: PostgreSQLURL, logger: Logger) async throws -> PostgreSQLEngine {
        let connections = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[PostgreSQLConnection], any Error>) in
            let thread = Thread {
                var opened: [PostgreSQLConnection] = []
                do {
                    for number in 0..<max(url.pool, 1) {
                        opened.append(try PostgreSQLConnection(
                            configuration: url, id: number, eventLoop: MultiThreadedEventLoopGroup.singleton.next(), logger: logger))
                    }
                    continuation.resume(returning: opened)
                } catch {
                    opened.forEach { $0.close() }
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "pg-connect"
            thread.start()
        }
        return PostgreSQLEngine(connections: connections, logger: logger)
    }

    private init(connections: [PostgreSQLConnection], logger: Logger) {
        exits = ThreadExits(count: connections.count)
        let jobs = jobs, exits = exits
        for (number, connection) in connections.enumerated() {
            let thread = Thread {
                Thread.current.name = "pg-conn-\(number)"   // from the thread itself, so Linux names it
                while let taken = jobs.takeAll(limit: 1) {
                    for job in taken { Self.run(job, on: connection, logger: logger) }
                }
                connection.close()
                exits.exited()
            }
            thread.start()
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> (T, [@Sendable () -> Void]) {
        try await write(bracketed: true, body)
    }

    func writeAutocommit<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> (T, [@Sendable () -> Void]) {
        try await write(bracketed: false, body)
    }

    private func write<T: Sendable>(bracketed: Bool, _ body: @escaping @Sendable (Transaction) throws -> T) async throws
        -> (T, [@Sendable () -> Void]) {
        let box = ResultBox<T>()
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let job = WriteJob(
                run: { transaction in
                    box.value = try body(transaction)
                    box.actions = transaction.afterCommitActions
                },
                finish: { continuation.resume(with: $0) },
                bracketed: bracketed)
            if !jobs.submit(.write(job)) { continuation.resume(throwing: StorageError.closed) }
        }
        return (box.value!, box.actions)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await read(bracketed: true, body)
    }

    func readAutocommit<T: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await read(bracketed: false, body)
    }

    private func read<T: Sendable>(bracketed: Bool, _ body: @escaping @Sendable (Snapshot) throws -> T) async throws -> T {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
            let job = ReadJob(run: { snapshot in continuation.resume(with: Result { try body(snapshot) }) }, bracketed: bracketed)
            if !jobs.submit(.read(job)) { continuation.resume(throwing: StorageError.closed) }
        }
    }

    func close() async {
        jobs.stop()
        let exits = exits
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                exits.waitForAll()
                continuation.resume()
            }.start()
        }
    }

    // MARK: A pool thread

    private static func run(_ job: Job, on connection: PostgreSQLConnection, logger: Logger) {
        switch job {
        case .write(let write):
            write.finish(Result { try runWrite(write, on: connection) })
        case .read(let read):
            // One round trip waited for, not three: `START` goes ahead of the first query without
            // a wait (the connection runs them in order, and a query behind a failed `START` fails
            // alike), and the read-only `COMMIT` finishes while this thread takes its next job.
            let snapshot = Snapshot(kind: .postgresql, runner: connection)
            guard read.bracketed else {
                // One statement, its own snapshot: no transaction around it.
                do { try connection.connectIfNeeded() } catch {
                    logger.error("database read could not connect", metadata: ["error": "\(error)"])
                }
                read.run(snapshot)
                snapshot.close()
                return
            }
            var begun: EventLoopFuture<PostgresQueryResult>?
            do {
                try connection.connectIfNeeded()
                begun = connection.send("START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            } catch {
                // The closure still runs, so its caller is answered: its statements fail alike.
                logger.error("database read could not begin", metadata: ["error": "\(error)"])
            }
            read.run(snapshot)
            snapshot.close()
            if let begun, case .failure(let error) = Result(catching: { try begun.wait() }) {
                logger.error("database read could not begin", metadata: ["error": "\(String(reflecting: error))"])
            }
            connection.send("COMMIT")
        }
    }

    private static func runWrite(_ job: WriteJob, on connection: PostgreSQLConnection) throws {
        var attempt = 1
        while true {
            try connection.connectIfNeeded()
            // `BEGIN` goes ahead of the first statement without a wait, as a read's `START` does,
            // and so do the statements the closure only `send`s: the first statement that waits
            // (the `COMMIT` at the latest) throws the failure of any of them.
            let transaction = Transaction(kind: .postgresql, runner: connection)
            do {
                if job.bracketed { try connection.send("BEGIN", []) }
                try job.run(transaction)
                transaction.close()
                if job.bracketed {
                    _ = try connection.run("COMMIT", [])
                } else {
                    try connection.settle()   // what was only sent has committed (or failed) by now
                }
                return
            } catch {
                transaction.close()
                if job.bracketed { _ = try? connection.run("ROLLBACK", []) }
                try? connection.settle()   // nothing sent for this transaction is left for the next
                if let failure = error as? PostgreSQLError, failure.isRetryable, attempt < attempts {
                    attempt += 1
                    continue
                }
                throw error
            }
        }
    }
}

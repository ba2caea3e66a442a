/// Group commit on the writer's connection: the jobs of a batch in one transaction, one COMMIT,
/// and every job answered with what the commit did.
extension SQLiteEngine {
    /// How a run of a batch ended.
    private enum BatchEnd {
        /// Committed (or, every job having failed, rolled back): each job's outcome.
        case ended([Result<Void, any Error>])
        /// Every job was answered (the transaction itself failed, or a job of a batch of one did).
        case answered
        /// A job failed after it wrote, with no savepoint to undo it alone: nothing was kept.
        case runInSavepoints
    }

    /// A job that throws is undone alone; the others commit. First without savepoints: a
    /// savepoint keeps a copy of every page its job changes (8 % of the writer's time at 4 000
    /// messages a second), and a job that throws mostly does so before it changes anything (a
    /// check that refuses), which leaves nothing to undo. One that throws after a change it made
    /// (`SQLiteConnection.hasWritten`) rolls the transaction back, and the batch runs again with
    /// each job in a savepoint of its own — every closure a second time, as PostgreSQL runs a
    /// deadlock's victim again (a closure's only effects are on its transaction and what it returns).
    static func commit(_ batch: [WriteJob], on connection: SQLiteConnection) {
        var end = run(batch, savepoints: false, on: connection)
        if case .runInSavepoints = end { end = run(batch, savepoints: true, on: connection) }
        guard case .ended(let outcomes) = end else { return }
        for (job, outcome) in zip(batch, outcomes) { job.finish(outcome) }
    }

    private static func run(_ batch: [WriteJob], savepoints: Bool, on connection: SQLiteConnection) -> BatchEnd {
        func failAll(_ error: any Error) -> BatchEnd {
            for job in batch { job.finish(.failure(error)) }
            return .answered
        }
        // A transaction an earlier failure left open (its ROLLBACK failed too) belongs to callers
        // already told it failed: undone, not carried into this batch's commit.
        if !connection.isAutocommit { _ = try? connection.run("ROLLBACK", []) }
        do {
            _ = try connection.run("BEGIN IMMEDIATE", [])
        } catch {
            return failAll(error)
        }
        var outcomes: [Result<Void, any Error>] = []
        outcomes.reserveCapacity(batch.count)
        for job in batch {
            let transaction = Transaction(kind: .sqlite, runner: connection)
            connection.hasWritten = false
            do {
                if savepoints { _ = try connection.run("SAVEPOINT job", []) }
                try job.run(transaction)
                transaction.close()
                if savepoints { _ = try connection.run("RELEASE job", []) }
                outcomes.append(.success(()))
            } catch {
                transaction.close()
                if connection.isAutocommit {
                    // SQLite rolled the whole transaction back by itself (I/O error, disk full):
                    // nothing of this batch is kept.
                    return failAll(StorageError.batchRolledBack("\(error)"))
                }
                if savepoints {
                    do {
                        _ = try connection.run("ROLLBACK TO job", [])
                        _ = try connection.run("RELEASE job", [])
                    } catch {
                        _ = try? connection.run("ROLLBACK", [])
                        return failAll(StorageError.batchRolledBack("\(error)"))
                    }
                } else if connection.hasWritten {
                    _ = try? connection.run("ROLLBACK", [])
                    guard batch.count > 1 else {
                        job.finish(.failure(error))   // its transaction was its own: undone, answered
                        return .answered
                    }
                    return .runInSavepoints
                }
                outcomes.append(.failure(error))
            }
        }
        do {
            if outcomes.contains(where: { (try? $0.get()) != nil }) {
                _ = try connection.run("COMMIT", [])
            } else {
                _ = try connection.run("ROLLBACK", [])   // nothing to keep
            }
        } catch {
            if !connection.isAutocommit { _ = try? connection.run("ROLLBACK", []) }
            return failAll(error)
        }
        return .ended(outcomes)
    }
}

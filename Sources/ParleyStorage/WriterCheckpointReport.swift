/// What the SQLite writer's own checkpoint did (see `SQLiteEngine.writerCheckpointPages`), and
/// when that is worth a line in the log: the checkpoint should copy the few frames the
/// checkpointer has not, hold writes for a few milliseconds, and let the next transaction start
/// the WAL over. One that could not copy all of it leaves the WAL growing past its usual size
/// (a reader on an old snapshot, the checkpointer in the middle of a pass), and one that held
/// writes long is every waiting sender's latency — both are told, at most once a minute, with how
/// many more there were since the last line.
struct WriterCheckpointReport {
    /// SQLite's answer: `busy` 1 when it could not finish, the WAL's frames and those copied.
    struct Outcome: Equatable {
        let busy: Int64
        let frames: Int64
        let copied: Int64
        let milliseconds: Int

        var isComplete: Bool { busy == 0 && frames >= 0 && copied == frames }
    }

    /// A checkpoint that held writes this long is told even when it completed.
    static let slowMilliseconds = 100
    static let interval: UInt64 = 60_000_000_000

    private var lastToldAt: UInt64?
    private var untold = 0

    /// The line to log for `outcome` at `now` (nanoseconds), or nil: nothing worth it, or told
    /// within the last minute (then counted for the next line).
    mutating func line(for outcome: Outcome, now: UInt64) -> String? {
        guard !outcome.isComplete || outcome.milliseconds >= Self.slowMilliseconds else { return nil }
        if let lastToldAt, now &- lastToldAt < Self.interval {
            untold += 1
            return nil
        }
        lastToldAt = now
        defer { untold = 0 }
        let what = if outcome.isComplete {
            "the SQLite writer's checkpoint held writes for \(outcome.milliseconds) ms"
        } else if outcome.frames < 0 {
            "the SQLite writer's checkpoint met another under way; the WAL grows until the next"
        } else {
            "the SQLite writer's checkpoint copied \(outcome.copied) of \(outcome.frames) WAL frames"
                + (outcome.busy != 0 ? " (busy)" : "") + "; the WAL grows until the next"
        }
        return untold > 0 ? "\(what) (\(untold) more since the last notice)" : what
    }
}

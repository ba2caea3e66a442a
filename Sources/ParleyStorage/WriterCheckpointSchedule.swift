/// When the SQLite writer makes its own checkpoint (see `SQLiteEngine.writerCheckpointPages`):
/// told the WAL's frames after each batch, and whether a checkpointer pass has just ended.
///
/// Due at `pages` frames; then made right after a checkpointer pass (least left to copy and
/// sync), or whenever once a quarter of `pages` past due. One that could not finish (a reader
/// still on an old snapshot) is due again `retryPages` later, not after every batch. Once the
/// WAL starts over, the next is due `pages` after where it starts.
struct WriterCheckpointSchedule {
    let pages: Int
    let retryPages: Int
    private(set) var dueAt: Int

    init(pages: Int, retryPages: Int) {
        self.pages = pages
        self.retryPages = retryPages
        dueAt = pages
    }

    /// Whether to checkpoint now, with the WAL at `frames`; a yes counts as made.
    mutating func checkpointNow(frames: Int, passJustEnded: @autoclosure () -> Bool) -> Bool {
        if frames < dueAt {
            dueAt = min(dueAt, max(frames, 0) + pages)
            return false
        }
        guard frames >= dueAt + pages / 4 || passJustEnded() else { return false }
        dueAt = frames + retryPages
        return true
    }
}

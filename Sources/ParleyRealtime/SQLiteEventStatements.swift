/// The two statements that store an event on SQLite (`EventLog.append`) for `count` recipients:
/// the upsert that moves their heads on and returns the numbers, and the insert of their rows.
/// Written once per count, not for every event: each is looked up in the connection's statement
/// cache by its text, and a message is stored several thousand times a second.
struct SQLiteEventStatements: Sendable {
    let heads: String
    let events: String

    init(count: Int) {
        let heads = Array(repeating: "(?, 1)", count: count).joined(separator: ", ")
        self.heads = """
            INSERT INTO user_event_heads (user_id, last_seq) VALUES \(heads)
            ON CONFLICT (user_id) DO UPDATE SET last_seq = user_event_heads.last_seq + 1
            RETURNING user_id, last_seq
            """
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
        events = "INSERT INTO user_events (user_id, seq, type, payload, created_at, except_session) VALUES \(values)"
    }

    /// Those of a dialog's worth of recipients, written at first use; larger counts each time.
    private static let common = (0...32).map { SQLiteEventStatements(count: $0) }

    static func `for`(_ count: Int) -> SQLiteEventStatements {
        count < common.count ? common[count] : SQLiteEventStatements(count: count)
    }
}

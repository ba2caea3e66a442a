import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage

extension StoredEvent {
    /// A stored event from a `user_events` row (`seq, type, payload, created_at, except_session`);
    /// nil when its type or payload is not one this version reads.
    init?(row: Row, user: UserID) throws {
        let type = try row.decode(column: "type", as: String.self)
        let payload = try row.decode(column: "payload", as: String.self)
        guard let event = RealtimeEvent.decode(type: type, payload: payload) else { return nil }
        self.init(userID: user, seq: try row.decode(column: "seq", as: Int64.self), event: event,
                  createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
                  exceptSession: try row.decode(column: "except_session", as: String?.self).map(SessionID.init(rawValue:)),
                  payloadJSON: payload)
    }

    /// One stretch of a user's sequence: the events after `after`, up to and with `through`.
    struct Range: Equatable {
        var user: UserID
        var after: Int64
        var through: Int64
    }

    /// Users per statement when reading ranges (three parameters each).
    static let rangesPerStatement = 100

    /// Every event of each range, oldest first per user, in one snapshot: one statement per
    /// `rangesPerStatement` ranges, so waking many users costs one trip to the pool, not one each.
    /// Unreadable events are left out (as `sync` skips them).
    static func read(_ ranges: [Range], in sql: Snapshot) throws -> [StoredEvent] {
        var events: [StoredEvent] = []
        var start = 0
        while start < ranges.count {
            let chunk = ranges[start..<min(start + rangesPerStatement, ranges.count)]
            start += chunk.count
            let conditions = Array(repeating: "(user_id = ? AND seq > ? AND seq <= ?)", count: chunk.count).joined(separator: " OR ")
            let rows = try sql.query("""
                SELECT user_id, seq, type, payload, created_at, except_session FROM user_events WHERE \(conditions)
                ORDER BY user_id, seq
                """, binding: chunk.flatMap { [.text($0.user.rawValue), .integer($0.after), .integer($0.through)] })
            for row in rows {
                let user = UserID(rawValue: try row.decode(column: "user_id", as: String.self))
                if let event = try StoredEvent(row: row, user: user) { events.append(event) }
            }
        }
        return events
    }
}

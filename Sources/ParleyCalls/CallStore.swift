import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage

/// A finished call as both histories show it.
public struct CallHistoryRecord: Sendable, Equatable {
    public var id: CallID
    public var caller: UserID
    public var callee: UserID
    public var media: CallMedia
    public var reason: CallEndReason
    public var answered: Bool
    public var startedAt: Date
    public var durationSeconds: Int

    /// What `viewer` calls this call: answered, declined, missed (for the callee of an
    /// unanswered call), canceled, no_answer, busy, connection_lost, server_shutdown.
    public func outcome(for viewer: UserID) -> String {
        if answered { return "answered" }
        if viewer == callee, [.canceled, .noAnswer, .busy].contains(reason) { return "missed" }
        return reason.rawValue
    }
}

public enum CallMigrations {
    public static let all: [Migration] = [
        Migration("calls.1") { sql in
            try sql.execute(#"""
                CREATE TABLE "calls" ("id" TEXT PRIMARY KEY, "caller_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "callee_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "media" TEXT NOT NULL, "reason" TEXT NOT NULL, "answered" INTEGER NOT NULL, "started_at" INTEGER NOT NULL, "duration_seconds" INTEGER NOT NULL)
                """#)
            try sql.execute(#"CREATE INDEX "calls_caller" ON "calls" ("caller_id", "started_at")"#)
            try sql.execute(#"CREATE INDEX "calls_callee" ON "calls" ("callee_id", "started_at")"#)
        },
        Migration("calls.2") { sql in
            // Who is in a live call, and on which node it is held (several nodes: SharedCallNetwork).
            // One row per person, so a person is in one call at most; `seen_at` is renewed by the
            // call's node while it lives.
            try sql.execute(#"""
                CREATE TABLE "call_parties" ("user_id" TEXT PRIMARY KEY, "call_id" TEXT NOT NULL, "node" TEXT NOT NULL, "caller_id" TEXT NOT NULL, "callee_id" TEXT NOT NULL, "media" TEXT NOT NULL, "started_at" INTEGER NOT NULL, "answered_at" INTEGER, "seen_at" INTEGER NOT NULL)
                """#)
            try sql.execute(#"CREATE INDEX "call_parties_call" ON "call_parties" ("call_id")"#)
            try sql.execute(#"CREATE INDEX "call_parties_node" ON "call_parties" ("node", "seen_at")"#)
            try sql.execute(#"CREATE INDEX "call_parties_seen" ON "call_parties" ("seen_at")"#)
        },
    ]
}

/// The call history.
public struct SQLCallStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    public func insert(_ call: CallHistoryRecord) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO calls (id, caller_id, callee_id, media, reason, answered, started_at, duration_seconds)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, call.id.rawValue, call.caller.rawValue, call.callee.rawValue, call.media.rawValue, call.reason.rawValue,
                call.answered ? 1 : 0, call.startedAt.storageMillis, call.durationSeconds)
        }
    }

    /// The user's calls, newest first, before a keyset cursor (started_at, id).
    public func calls(of user: UserID, before cursor: (Int64, String)?, limit: Int) async throws -> [CallHistoryRecord] {
        let columns = "SELECT id, caller_id, callee_id, media, reason, answered, started_at, duration_seconds FROM calls"
        let order = "ORDER BY started_at DESC, id DESC LIMIT ?"
        let me = user.rawValue
        return try await database.read { sql in
            let rows = if let (time, id) = cursor {
                try sql.query("""
                    \(columns) WHERE (caller_id = ? OR callee_id = ?) AND (started_at < ? OR (started_at = ? AND id < ?)) \(order)
                    """, me, me, time, time, id, limit)
            } else {
                try sql.query("\(columns) WHERE (caller_id = ? OR callee_id = ?) \(order)", me, me, limit)
            }
            return try rows.map { row in
                CallHistoryRecord(
                    id: CallID(rawValue: try row.decode(column: "id", as: String.self)),
                    caller: UserID(rawValue: try row.decode(column: "caller_id", as: String.self)),
                    callee: UserID(rawValue: try row.decode(column: "callee_id", as: String.self)),
                    media: CallMedia(rawValue: try row.decode(column: "media", as: String.self)) ?? .audio,
                    reason: CallEndReason(rawValue: try row.decode(column: "reason", as: String.self)) ?? .hangup,
                    answered: try row.decode(column: "answered", as: Int.self) != 0,
                    startedAt: Date(storageMillis: try row.decode(column: "started_at", as: Int64.self)),
                    durationSeconds: try row.decode(column: "duration_seconds", as: Int.self))
            }
        }
    }
}

import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage
import SQLKit

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
            try await sql.create(table: "calls")
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("caller_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("callee_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("media", type: .text, .notNull)
                .column("reason", type: .text, .notNull)
                .column("answered", type: .int, .notNull)
                .column("started_at", type: .bigint, .notNull)
                .column("duration_seconds", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "calls_caller").on("calls").column("caller_id").column("started_at").run()
            try await sql.create(index: "calls_callee").on("calls").column("callee_id").column("started_at").run()
        },
    ]
}

/// The call history over SQLKit.
public struct SQLCallStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    public func insert(_ call: CallHistoryRecord) async throws {
        try await database.withConnection { sql in
            try await sql.insert(into: "calls")
                .columns("id", "caller_id", "callee_id", "media", "reason", "answered", "started_at", "duration_seconds")
                .values(SQLBind(call.id.rawValue), SQLBind(call.caller.rawValue), SQLBind(call.callee.rawValue),
                        SQLBind(call.media.rawValue), SQLBind(call.reason.rawValue), SQLBind(call.answered ? 1 : 0),
                        SQLBind(call.startedAt.storageMillis), SQLBind(call.durationSeconds)).run()
        }
    }

    /// The user's calls, newest first, before a keyset cursor (started_at, id).
    public func calls(of user: UserID, before cursor: (Int64, String)?, limit: Int) async throws -> [CallHistoryRecord] {
        try await database.withConnection { sql in
            var select = sql.select().columns("id", "caller_id", "callee_id", "media", "reason", "answered", "started_at", "duration_seconds")
                .from("calls")
                .where { $0.where("caller_id", .equal, user.rawValue).orWhere("callee_id", .equal, user.rawValue) }
            if let (time, id) = cursor {
                select = select.where {
                    $0.where("started_at", .lessThan, time).orWhere { $0.where("started_at", .equal, time).where("id", .lessThan, id) }
                }
            }
            return try await select.orderBy("started_at", .descending).orderBy("id", .descending).limit(limit).all().map { row in
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

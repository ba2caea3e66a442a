import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyStorage
import Synchronization

/// Numbers, stores and then delivers every event for a user: stored first, so a device that was
/// away asks `sync since N` and gets exactly what it missed.
public final class EventLog: EventPublisher, Sendable {
    let database: Database
    public let hub: EventHub
    /// Hands committed events to live connections: this node's, or every node's.
    public let fanout: any EventFanout
    /// The other nodes, for what is not stored: typing, closing connections, presence.
    public let nodes: any NodeBus
    let clock: any WallClock
    let logger: Logger
    /// How long events are kept for `sync`.
    public let retention: TimeInterval
    /// Told of every stored event once it has been handed to the live connections (push).
    private let observers = Mutex<[@Sendable ([StoredEvent]) -> Void]>([])

    public init(database: Database, hub: EventHub, fanout: (any EventFanout)? = nil, nodes: any NodeBus = LocalNodeBus(),
                clock: any WallClock, retention: TimeInterval, logger: Logger) {
        self.database = database
        self.hub = hub
        self.fanout = fanout ?? LocalEventFanout(hub: hub)
        self.nodes = nodes
        self.clock = clock
        self.retention = retention
        self.logger = logger
    }

    public func publish(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID?) async {
        do {
            let stored = try await append(event, to: users, exceptSession: exceptSession)
            fanout.committed(stored)
            notify(stored)
        } catch {
            logger.error("event not stored", metadata: ["type": "\(event.type)", "error": "\(error)"])
        }
    }

    /// Calls `observer` with the events of every publish, after live delivery (so "does this
    /// device have a live connection?" is answered after it was offered the event).
    public func onDelivered(_ observer: @escaping @Sendable ([StoredEvent]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    func notify(_ events: [StoredEvent]) {
        guard !events.isEmpty else { return }
        for observer in observers.withLock({ $0 }) { observer(events) }
    }

    public func publishEphemeral(_ event: RealtimeEvent, to users: [UserID]) {
        hub.deliverEphemeral(event, to: users)
        nodes.ephemeral(event, to: users)
    }

    /// Closes a session's realtime connections (or all of a user's), on every node.
    public func closeConnections(session: SessionID? = nil, user: UserID? = nil) {
        hub.closeConnections(session: session, user: user)
        nodes.closeConnections(session: session, user: user)
    }

    /// Stores one event per user, each with the next number of that user's sequence: one upsert
    /// moves every recipient's head on (creating it on first use) and returns the new numbers, one
    /// insert stores the events — two statements however many recipients, in one transaction
    /// (on PostgreSQL one: the insert takes its numbers from the upsert).
    func append(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID? = nil) async throws -> [StoredEvent] {
        let encoded = EncodedEvent(event)   // before the write: the writer's time is everyone's
        return try await database.write { [self] sql in
            try append(encoded, to: users, exceptSession: exceptSession, in: sql)
        }
    }

    /// The same, inside the caller's transaction `sql`.
    func append(_ encoded: EncodedEvent, to users: [UserID], exceptSession: SessionID?, in sql: Transaction) throws -> [StoredEvent] {
        guard !users.isEmpty else { return [] }
        if sql.kind == .postgresql {
            // One statement (and round trip) numbers and stores: the heads' row locks are held
            // from here to the commit, the next round trip, and no longer.
            let clauses = clauses(storing: encoded, to: users, when: "TRUE", exceptSession: exceptSession)
            let rows = try sql.query("WITH \(clauses.sql) SELECT \(EventClauses.columns) FROM \(EventClauses.table)",
                                     binding: clauses.binds)
            return try events(clauses, rows)
        }
        // SQLite has no INSERT inside WITH: the numbers, then the rows (in-process, no round trips).
        let now = clock.now()
        let type = encoded.event.type, payload = encoded.payloadJSON
        let recipients = Self.ordered(users)
        let statements = SQLiteEventStatements.for(recipients.count)
        let numbered = try sql.query(statements.heads, binding: recipients.map(\.rawValue.sqlValue))
        var numbers: [String: Int64] = [:]
        for row in numbered {
            numbers[try row.decode(column: "user_id", as: String.self)] = try row.decode(column: "last_seq", as: Int64.self)
        }
        let stored = try Self.events(encoded, numbered: numbers, for: recipients, at: now, exceptSession: exceptSession)
        let except: SQLValue = exceptSession.map { .text($0.rawValue) } ?? .null
        let binds = stored.flatMap { event -> [SQLValue] in
            [.text(event.userID.rawValue), .integer(event.seq), .text(type), .text(payload), .integer(now.storageMillis), except]
        }
        try sql.send(statements.events, binding: binds)
        return stored
    }

    /// Each recipient once, in one order for every transaction: the upsert takes the heads' row
    /// locks in the order of its rows, and two transactions that took shared heads in opposite
    /// orders would deadlock each other (PostgreSQL breaks that after a second).
    static func ordered(_ users: [UserID]) -> [UserID] {
        Set(users).sorted { $0.rawValue < $1.rawValue }
    }

    /// The clauses of a `WITH` (PostgreSQL) that move each recipient's head on — only when
    /// `condition` holds — and store the event under the numbers it returns.
    func clauses(storing encoded: EncodedEvent, to users: [UserID], when condition: String, exceptSession: SessionID?) -> EventClauses {
        let now = clock.now(), recipients = Self.ordered(users), table = EventClauses.table
        guard !recipients.isEmpty else {
            return EventClauses(sql: "\(table) AS (SELECT CAST(NULL AS TEXT) AS user_id, CAST(NULL AS BIGINT) AS seq WHERE 1 = 0)", binds: [],
                                event: encoded, recipients: [], createdAt: now, exceptSession: exceptSession)
        }
        let values = Array(repeating: "(?)", count: recipients.count).joined(separator: ", ")
        let sql = """
            event_heads AS (
                INSERT INTO user_event_heads (user_id, last_seq)
                SELECT user_id, 1 FROM (VALUES \(values)) AS recipients (user_id) WHERE \(condition)
                ON CONFLICT (user_id) DO UPDATE SET last_seq = user_event_heads.last_seq + 1 RETURNING user_id, last_seq),
            \(table) AS (
                INSERT INTO user_events (user_id, seq, type, payload, created_at, except_session)
                SELECT user_id, last_seq, ?, ?, ?, CAST(? AS TEXT) FROM event_heads RETURNING user_id, seq)
            """
        let binds = recipients.map(\.rawValue.sqlValue) + [
            .text(encoded.event.type), .text(encoded.payloadJSON), .integer(now.storageMillis), exceptSession.map { .text($0.rawValue) } ?? .null,
        ]
        return EventClauses(sql: sql, binds: binds, event: encoded, recipients: recipients, createdAt: now, exceptSession: exceptSession)
    }

    /// The events `clauses` stored, read from their statement's rows (`EventClauses.columns`):
    /// one for every recipient, or none when their condition did not hold.
    func events(_ clauses: EventClauses, _ rows: [Row]) throws -> [StoredEvent] {
        var numbers: [String: Int64] = [:]
        for row in rows {
            guard let user = try row.decode(column: "event_user_id", as: String?.self) else { continue }
            numbers[user] = try row.decode(column: "event_seq", as: Int64.self)
        }
        if numbers.isEmpty { return [] }
        return try Self.events(clauses.event, numbered: numbers, for: clauses.recipients, at: clauses.createdAt,
                               exceptSession: clauses.exceptSession)
    }

    /// `encoded` as each recipient's event under the number the heads gave them (by user id).
    static func events(_ encoded: EncodedEvent, numbered numbers: [String: Int64], for recipients: [UserID], at createdAt: Date,
                       exceptSession: SessionID?) throws -> [StoredEvent] {
        try recipients.map { user in
            guard let seq = numbers[user.rawValue] else { throw EventLogError.headNotReturned(user) }
            return StoredEvent(userID: user, seq: seq, event: encoded.event, createdAt: createdAt, exceptSession: exceptSession,
                               payloadJSON: encoded.payloadJSON)
        }
    }

    /// The newest number in `user`'s sequence (0 before any event).
    public func latestSeq(of user: UserID) async throws -> Int64 {
        try await database.readAutocommit { sql in
            try sql.scalar("SELECT last_seq FROM user_event_heads WHERE user_id = ?", user.rawValue, as: Int64.self) ?? 0
        }
    }

    /// What a device that has seen up to `since` missed: at most `limit` events, oldest first.
    /// Throws `history_expired` when some of them are past retention and gone.
    /// `lastSeq` is the number of the page's last row (events skipped as unreadable included):
    /// the next page starts after it.
    public func events(of user: UserID, since: Int64, limit: Int) async throws -> (events: [StoredEvent], latest: Int64, lastSeq: Int64) {
        let latest = try await latestSeq(of: user)
        if since >= latest { return ([], latest, latest) }
        let rows = try await database.read { sql in
            try sql.query("""
                SELECT seq, type, payload, created_at, except_session FROM user_events WHERE user_id = ? AND seq > ?
                ORDER BY seq LIMIT ?
                """, user.rawValue, since, limit)
        }
        var firstSeq: Int64?, lastSeq = since
        var events: [StoredEvent] = []
        for row in rows {
            let seq = try row.decode(column: "seq", as: Int64.self)
            firstSeq = firstSeq ?? seq
            lastSeq = seq
            guard let event = try StoredEvent(row: row, user: user) else {
                // Written by a newer version, or damaged: skipped, the sequence goes on.
                let type = try row.decode(column: "type", as: String.self)
                logger.warning("stored event not readable; skipped", metadata: ["type": "\(type)", "seq": "\(seq)"])
                continue
            }
            events.append(event)
        }
        guard let firstSeq, firstSeq <= since + 1 else { throw RealtimeErrors.historyExpired }
        return (events, latest, lastSeq)
    }

    /// Deletes events older than the retention window.
    public func prune() async throws {
        let cutoff = clock.now().addingTimeInterval(-retention).storageMillis
        try await database.write { sql in
            try sql.execute("DELETE FROM user_events WHERE created_at < ?", cutoff)
        }
    }
}

public enum RealtimeErrors {
    public static let historyExpired = ParleyError(
        .gone, code: "history_expired", "Events this old are no longer kept; refetch dialogs and state over REST, then sync from the latest seq")
}

extension EventLog: TransactionalEvents {
    public func store(_ event: EncodedEvent, to users: [UserID], in transaction: Transaction) throws {
        delivered(try append(event, to: users, exceptSession: nil, in: transaction), after: transaction)
    }

    public func clauses(storing event: EncodedEvent, to users: [UserID], when condition: String) -> EventClauses {
        clauses(storing: event, to: users, when: condition, exceptSession: nil)
    }

    public func stored(_ clauses: EventClauses, rows: [Row], in transaction: Transaction) throws {
        delivered(try events(clauses, rows), after: transaction)
    }

    func delivered(_ stored: [StoredEvent], after transaction: Transaction) {
        guard !stored.isEmpty else { return }
        transaction.afterCommit { [self] in
            fanout.committed(stored)
            notify(stored)
        }
    }
}

/// The upsert of the sequence heads did not return a number for a recipient (it always should).
enum EventLogError: Error, CustomStringConvertible {
    case headNotReturned(UserID)

    var description: String {
        switch self {
        case .headNotReturned(let user): "no event sequence number returned for \(user)"
        }
    }
}

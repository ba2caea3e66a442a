import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyStorage
import SQLKit
import Synchronization

/// Numbers, stores and then delivers every event for a user: stored first, so a device that was
/// away asks `sync since N` and gets exactly what it missed.
public final class EventLog: EventPublisher, Sendable {
    let database: Database
    public let hub: EventHub
    let clock: any WallClock
    let logger: Logger
    /// How long events are kept for `sync`.
    public let retention: TimeInterval
    /// Told of every stored event once it has been handed to the live connections (push).
    private let observers = Mutex<[@Sendable ([StoredEvent]) -> Void]>([])

    public init(database: Database, hub: EventHub, clock: any WallClock, retention: TimeInterval, logger: Logger) {
        self.database = database
        self.hub = hub
        self.clock = clock
        self.retention = retention
        self.logger = logger
    }

    public func publish(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID?) async {
        do {
            let stored = try await append(event, to: users, exceptSession: exceptSession)
            for event in stored { hub.deliver(event.frame, to: event.userID, exceptSession: exceptSession) }
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
    }

    /// Stores one event per user, each with the next number of that user's sequence: one upsert
    /// moves every recipient's head on (creating it on first use) and returns the new numbers, one
    /// insert stores the events — two statements however many recipients, in one transaction.
    func append(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID? = nil) async throws -> [StoredEvent] {
        try await database.transaction { sql in
            try await append(event, to: users, exceptSession: exceptSession, in: sql)
        }
    }

    /// The same, inside the caller's transaction `sql`.
    func append(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID?, in sql: any SQLDatabase) async throws -> [StoredEvent] {
        let now = clock.now()
        let type = event.type, payload = event.payloadJSON()
        var seen = Set<UserID>()
        let recipients = users.filter { seen.insert($0).inserted }
        guard !recipients.isEmpty else { return [] }
        let heads = sql.insert(into: "user_event_heads").columns("user_id", "last_seq")
        for user in recipients { heads.values(SQLBind(user.rawValue), SQLBind(Int64(1))) }
        let rows = try await heads
            .onConflict(with: ["user_id"]) { $0.set("last_seq", to: SQLRaw("user_event_heads.last_seq + 1")) }
            .returning("user_id", "last_seq")
            .all()
        var numbers: [String: Int64] = [:]
        for row in rows {
            numbers[try row.decode(column: "user_id", as: String.self)] = try row.decode(column: "last_seq", as: Int64.self)
        }
        let events = sql.insert(into: "user_events").columns("user_id", "seq", "type", "payload", "created_at", "except_session")
        var stored: [StoredEvent] = []
        for user in recipients {
            guard let seq = numbers[user.rawValue] else { throw EventLogError.headNotReturned(user) }
            events.values(SQLBind(user.rawValue), SQLBind(seq), SQLBind(type), SQLBind(payload), SQLBind(now.storageMillis),
                          SQLBind(exceptSession?.rawValue))
            stored.append(StoredEvent(userID: user, seq: seq, event: event, createdAt: now, exceptSession: exceptSession))
        }
        try await events.run()
        return stored
    }

    /// The newest number in `user`'s sequence (0 before any event).
    public func latestSeq(of user: UserID) async throws -> Int64 {
        try await database.withConnection { sql in
            try await sql.select().column("last_seq").from("user_event_heads").where("user_id", .equal, user.rawValue)
                .first(decodingColumn: "last_seq", as: Int64.self) ?? 0
        }
    }

    /// What a device that has seen up to `since` missed: at most `limit` events, oldest first.
    /// Throws `history_expired` when some of them are past retention and gone.
    /// `lastSeq` is the number of the page's last row (events skipped as unreadable included):
    /// the next page starts after it.
    public func events(of user: UserID, since: Int64, limit: Int) async throws -> (events: [StoredEvent], latest: Int64, lastSeq: Int64) {
        let latest = try await latestSeq(of: user)
        if since >= latest { return ([], latest, latest) }
        let rows = try await database.withConnection { sql in
            try await sql.select().columns("seq", "type", "payload", "created_at", "except_session").from("user_events")
                .where("user_id", .equal, user.rawValue).where("seq", .greaterThan, since)
                .orderBy("seq").limit(limit).all()
        }
        var firstSeq: Int64?, lastSeq = since
        var events: [StoredEvent] = []
        for row in rows {
            let seq = try row.decode(column: "seq", as: Int64.self)
            firstSeq = firstSeq ?? seq
            lastSeq = seq
            let type = try row.decode(column: "type", as: String.self)
            guard let event = RealtimeEvent.decode(type: type, payload: try row.decode(column: "payload", as: String.self)) else {
                // Written by a newer version, or damaged: skipped, the sequence goes on.
                logger.warning("stored event not readable; skipped", metadata: ["type": "\(type)", "seq": "\(seq)"])
                continue
            }
            events.append(StoredEvent(
                userID: user, seq: seq, event: event,
                createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
                exceptSession: try row.decode(column: "except_session", as: String?.self).map(SessionID.init(rawValue:))))
        }
        guard let firstSeq, firstSeq <= since + 1 else { throw RealtimeErrors.historyExpired }
        return (events, latest, lastSeq)
    }

    /// Deletes events older than the retention window.
    public func prune() async throws {
        let cutoff = clock.now().addingTimeInterval(-retention).storageMillis
        try await database.withConnection { sql in
            try await sql.delete(from: "user_events").where("created_at", .lessThan, cutoff).run()
        }
    }
}

public enum RealtimeErrors {
    public static let historyExpired = ParleyError(
        .gone, code: "history_expired", "Events this old are no longer kept; refetch dialogs and state over REST, then sync from the latest seq")
}

extension EventLog: TransactionalEvents {
    public func store(_ event: RealtimeEvent, to users: [UserID], in sql: any SQLDatabase) async throws -> EventDelivery {
        let stored = try await append(event, to: users, exceptSession: nil, in: sql)
        return EventDelivery { [self] in
            for event in stored { hub.deliver(event.frame, to: event.userID, exceptSession: event.exceptSession) }
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

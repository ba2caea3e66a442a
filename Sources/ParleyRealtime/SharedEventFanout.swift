import Foundation
import Logging
import ParleyCore
import ParleyStorage

/// Live delivery across nodes sharing one PostgreSQL. The events table is the truth; after a
/// commit, the node that made it sends one wake-up on `channel` ("node user:first:last …", the
/// numbers it stored for each user), on a connection of its own. Every node listens; for each
/// user with a connection on it, it delivers from the last number it handed that user, reading
/// what it has not seen from the table — so a user's events reach their sockets on any node
/// once each, in their order, whichever node committed them. (A number is handed out under the
/// row lock of the user's head, so when N is committed, every number below N is too.)
/// All delivery on a node goes through one task, in the order wake-ups and commits arrive.
public final class SharedEventFanout: EventFanout, @unchecked Sendable {   // `cursors` is touched by the delivery task alone
    public static let channel = "parley_events"
    let hub: EventHub
    let database: Database
    let logger: Logger
    let node = UUID().uuidString.lowercased()
    private let work: AsyncStream<Work>.Continuation
    private let stream: AsyncStream<Work>
    /// The newest number handed to each user's connections on this node.
    private var cursors: [UserID: Int64] = [:]

    enum Work {
        case local([StoredEvent])
        case remote(UserID, first: Int64, last: Int64)
        /// The listening connection was lost and is back: wake-ups in between were missed.
        case catchUp
    }

    public init(hub: EventHub, database: Database, logger: Logger) {
        self.hub = hub
        self.database = database
        self.logger = logger
        (stream, work) = AsyncStream.makeStream(of: Work.self)
    }

    /// Listens for the other nodes' wake-ups and delivers until `stop`; `read` gives a user's
    /// events after a number (the event log's `sync` read).
    public func run(read: @escaping @Sendable (UserID, Int64, Int) async throws -> [StoredEvent]) async throws {
        let work = work, node = node
        try await database.listen(Self.channel, reconnected: { work.yield(.catchUp) }) { payload in
            let parts = payload.split(separator: " ")
            guard let sender = parts.first, sender != node else { return }
            for part in parts.dropFirst() {
                let fields = part.split(separator: ":")
                guard fields.count == 3, let first = Int64(fields[1]), let last = Int64(fields[2]) else { continue }
                work.yield(.remote(UserID(rawValue: String(fields[0])), first: first, last: last))
            }
        }
        for await item in stream {
            switch item {
            case .local(let events):
                for (user, theirs) in Dictionary(grouping: events, by: \.userID) {
                    let sorted = theirs.sorted { $0.seq < $1.seq }
                    await deliver(user, first: sorted[0].seq, last: sorted[sorted.count - 1].seq, stored: sorted, read: read)
                }
            case .remote(let user, let first, let last):
                await deliver(user, first: first, last: last, stored: nil, read: read)
            case .catchUp:
                await catchUp(read: read)
            }
        }
    }

    public func stop() { work.finish() }

    public func committed(_ events: [StoredEvent]) {
        guard !events.isEmpty else { return }
        work.yield(.local(events))
        var ranges: [UserID: (Int64, Int64)] = [:]
        for event in events {
            let range = ranges[event.userID] ?? (event.seq, event.seq)
            ranges[event.userID] = (min(range.0, event.seq), max(range.1, event.seq))
        }
        // One wake-up per commit, split only past NOTIFY's 8000-byte payload.
        var payloads: [String] = []
        var current = node
        for (user, range) in ranges {
            let part = " \(user.rawValue):\(range.0):\(range.1)"
            if current.utf8.count + part.utf8.count > 7_900 {
                payloads.append(current)
                current = node
            }
            current += part
        }
        payloads.append(current)
        let database = database, logger = logger
        Task {
            for payload in payloads {
                do { try await database.notify(Self.channel, payload: payload) } catch {
                    logger.error("event wake-up not sent", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// For every user connected here, what was committed after the last event handed to them
    /// (read from the table: the wake-ups for it went while nobody was listening).
    private func catchUp(read: @Sendable (UserID, Int64, Int) async throws -> [StoredEvent]) async {
        for (user, cursor) in cursors where hub.isOnline(user) {
            do {
                let events = try await read(user, cursor, 1_000).filter { $0.seq > cursor }
                for event in events { hub.deliver(event.frame, to: user, exceptSession: event.exceptSession) }
                if let last = events.last?.seq { cursors[user] = last }
            } catch {
                logger.error("events not read for catch-up", metadata: ["user": "\(user)", "error": "\(error)"])
            }
        }
    }

    /// Hands `user`'s events up to `last` to their connections here, after the last one handed.
    private func deliver(
        _ user: UserID, first: Int64, last: Int64, stored: [StoredEvent]?,
        read: @Sendable (UserID, Int64, Int) async throws -> [StoredEvent]
    ) async {
        guard hub.isOnline(user) else {
            cursors[user] = nil   // whoever connects next starts from `sync`
            return
        }
        let cursor = cursors[user] ?? first - 1
        guard cursor < last else { return }
        var events: [StoredEvent]
        if let stored, cursor == first - 1 {
            events = stored
        } else {
            do {
                events = try await read(user, cursor, Int(last - cursor))
            } catch {
                logger.error("events not read for delivery", metadata: ["user": "\(user)", "error": "\(error)"])
                return
            }
        }
        events = events.filter { $0.seq > cursor && $0.seq <= last }
        for event in events { hub.deliver(event.frame, to: user, exceptSession: event.exceptSession) }
        cursors[user] = max(cursor, events.last?.seq ?? cursor, last)
    }
}

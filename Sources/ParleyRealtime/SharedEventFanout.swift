import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyStorage
import Synchronization

/// Live delivery across nodes sharing one PostgreSQL. The events table is the truth; after a
/// commit, the node that made it sends a wake-up on `channel` (`WakeUp`: each event it stored
/// with the number each recipient got, or only the numbers where an event would not fit; the
/// commits made while the last one was on its way together), on a connection of its own. Every
/// node listens; for each user with a connection on it, it delivers from the last number it
/// handed that user — the events the wake-up carries when they follow on, else read from the
/// table — so a user's events reach their sockets on any node once each, in their order,
/// whichever node committed them. (A number is handed out under the
/// row lock of the user's head, so when N is committed, every number below N is too.)
/// A user's first connection here says where its live events start (`connected`: the
/// `latestSeq` of its hello); until then nothing is handed to them, and from then on everything
/// after it is — never a start guessed from the first wake-up, which may have overtaken the
/// wake-ups for lower numbers still on their way (another node's, or a local commit's).
/// All delivery on a node goes through one task, in the order wake-ups and commits arrive. It
/// takes what has queued while it worked as one batch: one read for every user whose events must
/// come from the table, so a node woken for thousands of users a second makes a few reads, not
/// thousands one after another (each behind the pool's queue), and local commits never wait
/// behind another user's read.
public final class SharedEventFanout: EventFanout, @unchecked Sendable {   // `cursors` is touched by the delivery task alone
    public static let channel = "parley_events"
    let hub: EventHub
    let database: Database
    let logger: Logger
    let node: String
    /// What is waiting for the delivery task, and its doorbell (one ring stands for any number).
    private let pending = Mutex<(work: [Work], stopped: Bool)>(([], false))
    private let bell: AsyncStream<Void>.Continuation
    private let rings: AsyncStream<Void>
    private let wakeUps: WakeUps
    /// The newest number handed to each user's connections on this node; none for a user who
    /// is not connected here, or whose first connection has not said where it starts.
    private var cursors: [UserID: Int64] = [:]
    /// The newest number announced for a user connected here whose first connection has not yet
    /// said where it starts: read from the table once it has.
    private var unstarted: [UserID: Int64] = [:]
    /// Events of users connected here that follow a number not yet announced to this node —
    /// another node's commit whose wake-up is on its way (this node's own commit of the next
    /// number came first) — kept until it comes, so the gap costs no read; read from the table
    /// when it has not come within `gapWait`.
    private var held: [UserID: Held] = [:]
    private var recheckQueued = false
    let gapWait: Duration
    /// How often what is kept for users no longer connected here is dropped (`forgetOffline`).
    let forgetInterval: Duration
    private var lastForgotten = ContinuousClock.now
    /// Users with a cursor, a number not yet started or events held, after the last batch.
    private let tracked = Atomic<Int>(0)

    struct Held {
        var stored: [Int64: StoredEvent]
        var last: Int64
        let since: ContinuousClock.Instant
    }

    enum Work {
        case local([StoredEvent])
        /// Events another node committed, carried whole by its wake-up (for users connected here).
        case announced([StoredEvent])
        case remote(UserID, first: Int64, last: Int64)
        /// A connection of the user opened here and was told the newest number was `after`.
        case connected(UserID, after: Int64)
        /// The listening connection was lost and is back: wake-ups in between were missed.
        case catchUp
        /// Held events' wait may be over (`held`).
        case recheck
    }

    /// `gapWait`: how long events wait for the wake-up of a lower number before it is read (`held`);
    /// `forgetInterval`: how often what is kept for users who left is dropped.
    public init(hub: EventHub, database: Database, gapWait: Duration = .milliseconds(50), forgetInterval: Duration = .seconds(30),
                logger: Logger) {
        self.hub = hub
        self.gapWait = gapWait
        self.forgetInterval = forgetInterval
        self.database = database
        self.logger = logger
        let node = UUID().uuidString.lowercased()
        self.node = node
        (rings, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeUps = WakeUps(node: node, database: database, logger: logger)
    }

    private func enqueue(_ item: Work) {
        enqueue([item])
    }

    private func enqueue(_ items: [Work]) {
        guard !items.isEmpty else { return }
        let queued = pending.withLock { state in
            guard !state.stopped else { return false }
            state.work += items
            return true
        }
        if queued { bell.yield() }
    }

    /// Listens for the other nodes' wake-ups and delivers until `stop`; `read` gives a user's
    /// events after a number (the event log's `sync` read), for catching up after the listening
    /// connection was lost.
    public func run(read: @escaping @Sendable (UserID, Int64, Int) async throws -> [StoredEvent]) async throws {
        let node = node
        let own = node + "\n"
        try await database.listen(Self.channel, reconnected: { [weak self] in self?.enqueue(.catchUp) }) { [weak self] payload in
            // This node's own wake-ups come back too: passed over before anything is parsed.
            guard let self, !payload.hasPrefix(own), let wakeUp = WakeUp.parse(payload), wakeUp.node != node else { return }
            announced(wakeUp)
        }
        for await _ in rings {
            let batch = pending.withLock { state in
                defer { state.work.removeAll(keepingCapacity: true) }
                return state.work
            }
            await deliver(batch)
            if batch.contains(where: { if case .catchUp = $0 { true } else { false } }) { await catchUp(read: read) }
            forgetOfflineIfDue()
            tracked.store(cursors.count + unstarted.count + held.count, ordering: .relaxed)
        }
    }

    /// Users this node keeps a cursor, a number or held events for (after the last batch): those
    /// connected here, and those who left since the last `forgetInterval`.
    public var trackedUsers: Int { tracked.load(ordering: .relaxed) }

    /// Drops what is kept for users with no connection here any more. A user who leaves is
    /// otherwise forgotten only when an event of theirs comes while they are away; one who gets
    /// none kept a cursor for good — every user who ever connected, on a node that runs for
    /// weeks, each looked at again by every catch-up. A user who comes back starts from their
    /// hello's number, as on a first connection.
    private func forgetOfflineIfDue() {
        let now = ContinuousClock.now
        guard now - lastForgotten >= forgetInterval else { return }
        lastForgotten = now
        let online = Set(hub.onlineUsers())   // one look under the hub's lock, not one per user
        cursors = cursors.filter { online.contains($0.key) }
        unstarted = unstarted.filter { online.contains($0.key) }
        held = held.filter { online.contains($0.key) }
    }

    public func stop() {
        pending.withLock { $0.stopped = true }
        bell.finish()
        wakeUps.stop()
    }

    /// Another node's wake-up: the events it carries whole, for the users connected here, are
    /// handed on as they are (no read, and not decoded: a socket takes them as text); the other
    /// users' numbers go in as ranges.
    func announced(_ wakeUp: WakeUp) {
        var work: [Work] = []
        var carried: [StoredEvent] = []
        for part in wakeUp.parts {
            if case .event(let type, let payloadJSON, let millis, let exceptSession, let numbers) = part {
                var here: [WakeUp.Numbered] = [], away: [WakeUp.Numbered] = []
                for number in numbers {
                    if hub.isOnline(number.user) { here.append(number) } else { away.append(number) }
                }
                if !here.isEmpty, StoredEvent.canCarry(type: type, payloadJSON: payloadJSON) {
                    let createdAt = Date(storageMillis: millis)
                    carried += here.map {
                        StoredEvent(carried: type, payloadJSON: payloadJSON, userID: $0.user, seq: $0.seq, createdAt: createdAt,
                                    exceptSession: exceptSession)
                    }
                    work += away.map { .remote($0.user, first: $0.seq, last: $0.seq) }
                    continue
                }
            }
            work += part.ranges.map { .remote($0.0, first: $0.first, last: $0.last) }
        }
        if !carried.isEmpty { work.append(.announced(carried)) }
        enqueue(work)   // one hand-over, one ring, for the whole wake-up
    }

    public func connected(_ user: UserID, after seq: Int64) {
        enqueue(.connected(user, after: seq))
    }

    public func committed(_ events: [StoredEvent]) {
        guard !events.isEmpty else { return }
        enqueue(.local(events))
        wakeUps.add(WakeUp.parts(for: events))
    }

    /// The wake-ups not yet sent, and the task that sends them: what commits while one
    /// `pg_notify` is on its way goes in the next, and one goes at most every `spacing` — so a
    /// busy node sends a few hundred a second, not one per commit (each wake-up is a transaction
    /// on the server, however many notifications its parts take, under its notify lock, and wakes
    /// every node's listening connection).
    /// A wake-up after a quiet spell goes at once.
    ///
    /// A wake-up that could not be sent (its connection dropped and cannot connect again yet) is
    /// kept and sent with the next try, after 50 ms, then twice as long each time up to 2 s: the
    /// other nodes learn of those events late, not never (a socket there whose user has nothing
    /// more committed would otherwise wait for its next reconnect). What is kept is bounded: past
    /// `heldLimit` parts the oldest go, and the other nodes read what they miss from the table when
    /// a later number for the same user arrives.
    final class WakeUps: Sendable {
        private let parts = Mutex<[WakeUp.Part]>([])
        private let bell: AsyncStream<Void>.Continuation
        static let spacing: Duration = .milliseconds(2)
        static let firstRetry: Duration = .milliseconds(50)
        static let longestRetry: Duration = .seconds(2)
        static let heldLimit = 10_000

        init(node: String, database: Database, logger: Logger) {
            let (rings, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            self.bell = bell
            // Holds this object until `stop` ends the rings.
            Task { [self] in
                var sent: ContinuousClock.Instant?
                var held: [WakeUp.Part] = []
                var retry = Self.firstRetry
                for await _ in rings {
                    if let sent, ContinuousClock.now < sent + Self.spacing { try? await Task.sleep(until: sent + Self.spacing) }
                    sent = .now
                    let fresh = parts.withLock { parts in
                        defer { parts.removeAll(keepingCapacity: true) }
                        return parts
                    }
                    // Nothing held back is the usual case: no copy of the parts for it.
                    let taken = held.isEmpty ? fresh : held + fresh
                    held = []
                    guard !taken.isEmpty else { continue }
                    do {
                        try await database.notify(SharedEventFanout.channel, payloads: WakeUp.payloads(node: node, parts: taken))
                        retry = Self.firstRetry
                    } catch {
                        let dropped = max(taken.count - Self.heldLimit, 0)
                        logger.error("event wake-up not sent; trying again", metadata: [
                            "error": "\(error)", "in": "\(retry)", "parts": "\(taken.count - dropped)", "dropped": "\(dropped)",
                        ])
                        held = Array(taken.dropFirst(dropped))
                        try? await Task.sleep(for: retry)
                        retry = min(retry * 2, Self.longestRetry)
                        bell.yield()   // a no-op once stopped
                    }
                }
            }
        }

        func add(_ more: [WakeUp.Part]) {
            parts.withLock { $0 += more }
            bell.yield()
        }

        func stop() { bell.finish() }
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

    /// What a batch asks for one user: the highest number announced, the lowest, the events
    /// in hand (this node's commits, those a wake-up carried, those held) — no read needed when
    /// they follow on from the cursor — and whether some were announced by their numbers alone.
    struct Wanted {
        var first: Int64
        var last: Int64
        var stored: [Int64: StoredEvent] = [:]
        var numbersOnly = false
        var heldSince: ContinuousClock.Instant?
    }

    /// Hands each user in `batch` their events up to the last announced, after the last one handed:
    /// from this node's own commits when they follow on, else read from the table — every such
    /// user in one read. A user whose connection has just said where it starts gets what was
    /// announced after that while it had not said (read from the table).
    private func deliver(_ batch: [Work]) async {
        var wanted: [UserID: Wanted] = [:]
        func want(_ user: UserID, _ first: Int64, _ last: Int64) {
            if wanted[user] == nil { wanted[user] = Wanted(first: first, last: last) }
            wanted[user]!.first = min(wanted[user]!.first, first)
            wanted[user]!.last = max(wanted[user]!.last, last)
        }
        for item in batch {
            switch item {
            case .local(let events), .announced(let events):
                for event in events {
                    want(event.userID, event.seq, event.seq)
                    wanted[event.userID]!.stored[event.seq] = event
                }
            case .remote(let user, let first, let last):
                want(user, first, last)
                wanted[user]!.numbersOnly = true
            case .connected(let user, let after):
                guard cursors[user] == nil, hub.isOnline(user) else { continue }   // already started here
                cursors[user] = after
                if let announced = unstarted.removeValue(forKey: user), announced > after {
                    want(user, after + 1, announced)
                    wanted[user]!.numbersOnly = true   // their wake-ups came already: read, not waited for
                }
            case .catchUp:
                continue
            case .recheck:
                recheckQueued = false
            }
        }
        for (user, kept) in held {
            want(user, kept.stored.keys.min() ?? kept.last, kept.last)
            wanted[user]!.stored.merge(kept.stored) { new, _ in new }
            wanted[user]!.heldSince = kept.since
        }
        held = [:]
        let now = ContinuousClock.now
        var ranges: [StoredEvent.Range] = []
        for (user, asked) in wanted {
            guard hub.isOnline(user) else {
                cursors[user] = nil   // whoever connects next starts from their hello's number
                unstarted[user] = nil
                continue
            }
            guard let cursor = cursors[user] else {
                unstarted[user] = max(unstarted[user] ?? asked.last, asked.last)   // until it says where it starts
                continue
            }
            guard cursor < asked.last else { continue }
            let own = asked.last - cursor <= asked.stored.count ? (cursor + 1...asked.last).compactMap { asked.stored[$0] } : []
            if !own.isEmpty, own.count == Int(asked.last - cursor) {
                hand(own, to: user, after: cursor, through: asked.last)
            } else if !asked.numbersOnly, !asked.stored.isEmpty, asked.last - cursor <= 256, now < (asked.heldSince ?? now) + gapWait {
                // A lower number's wake-up is on its way: wait for it rather than read.
                held[user] = Held(stored: asked.stored.filter { $0.key > cursor }, last: asked.last, since: asked.heldSince ?? now)
            } else {
                ranges.append(.init(user: user, after: cursor, through: asked.last))
            }
        }
        if let oldest = held.values.map(\.since).min(), !recheckQueued {
            recheckQueued = true
            Task { [weak self, gapWait] in
                try? await Task.sleep(until: oldest + gapWait)
                self?.enqueue(.recheck)
            }
        }
        guard !ranges.isEmpty else { return }
        let read: [StoredEvent], reading = ranges
        do {
            read = try await database.read { sql in try StoredEvent.read(reading, in: sql) }
        } catch {
            logger.error("events not read for delivery", metadata: ["users": "\(ranges.count)", "error": "\(error)"])
            return
        }
        let byUser = Dictionary(grouping: read, by: \.userID)
        for range in ranges {
            guard hub.isOnline(range.user) else {
                cursors[range.user] = nil
                continue
            }
            hand(byUser[range.user] ?? [], to: range.user, after: range.after, through: range.through)
        }
    }

    /// Delivers `user`'s events in (`after`, `through`], in order, and moves their cursor to `through`.
    private func hand(_ events: [StoredEvent], to user: UserID, after: Int64, through: Int64) {
        let cursor = cursors[user] ?? after
        for event in events where event.seq > cursor && event.seq <= through {
            hub.deliver(event.frame, to: user, exceptSession: event.exceptSession)
        }
        cursors[user] = max(cursor, through)
    }
}

import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyStorage
import Synchronization

/// The nodes sharing one PostgreSQL: the people in live calls in `call_parties` (one row each,
/// naming the call and the node holding it), requests about a call to its node over the node
/// bus. Each node renews its rows every ``heartbeat``; rows not renewed for ``expiry`` belong to a
/// node that stopped, and the first node to find them ends those calls `connection_lost`
/// (one `DELETE … RETURNING`, so exactly one node announces and records each).
public final class SharedCallNetwork: CallNetwork {
    public static let heartbeat = Duration.seconds(3)
    public static let expiry: TimeInterval = 10
    public static let requestTimeout = Duration.seconds(10)
    let database: Database
    let requests: any NodeRequests
    let logger: Logger
    /// The renewing loop, while it runs.
    private let loop = Mutex<Task<Void, Never>?>(nil)
    /// Calls this node reserved and has not released. Their rows are never leftovers, however
    /// long placing the call takes: under load the book can get a call more than ``expiry``
    /// after its reservation, and the renewal must not take the rows away in between.
    private let reserved = Mutex<Set<String>>([])

    public init(database: Database, requests: any NodeRequests, logger: Logger) {
        self.database = database
        self.requests = requests
        self.logger = logger
    }

    public var isShared: Bool { true }
    public var node: String { requests.nodeID }

    /// Not there: somebody else's row stood in the way.
    struct Taken: Error {}

    public func reserve(_ call: CallParties) async throws -> CallReservation {
        let me = node
        for _ in 0..<3 {
            let rows: [Row]
            do { rows = try await database.write { sql -> [Row] in
                let rows = try sql.query(#"SELECT "user_id", "call_id", "node", "caller_id", "callee_id" FROM "call_parties" WHERE "user_id" IN (?, ?)"#,
                                         call.caller.rawValue, call.callee.rawValue)
                guard rows.isEmpty else { return rows }
                let inserted = try sql.execute(#"""
                    INSERT INTO "call_parties" ("user_id", "call_id", "node", "caller_id", "callee_id", "media", "started_at", "seen_at")
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("user_id") DO NOTHING
                    """#, call.caller.rawValue, call.id.rawValue, me, call.caller.rawValue, call.callee.rawValue, call.media.rawValue,
                    call.startedAt.storageMillis, Date().storageMillis,
                    call.callee.rawValue, call.id.rawValue, me, call.caller.rawValue, call.callee.rawValue, call.media.rawValue,
                    call.startedAt.storageMillis, Date().storageMillis)
                if inserted != 2 { throw Taken() }   // another node reserved one of them meanwhile: rolled back
                return []
            } } catch is Taken {
                continue
            }
            if rows.isEmpty {
                reserved.withLock { _ = $0.insert(call.id.rawValue) }
                return .reserved
            }
            let found = try rows.map { row in
                (user: try row.decode(column: "user_id", as: String.self), call: try row.decode(column: "call_id", as: String.self),
                 node: try row.decode(column: "node", as: String.self), caller: try row.decode(column: "caller_id", as: String.self),
                 callee: try row.decode(column: "callee_id", as: String.self))
            }
            if found.contains(where: { $0.node == me }) { return .here }
            if let theirs = found.first(where: { $0.user == call.callee.rawValue }),
               theirs.caller == call.callee.rawValue, theirs.callee == call.caller.rawValue {
                return .crossing(CallID(rawValue: theirs.call), node: theirs.node)
            }
            if found.contains(where: { $0.user == call.caller.rawValue }) { return .callerBusy }
            return .calleeBusy
        }
        return .calleeBusy
    }

    public func answered(_ id: CallID, at time: Date) async {
        await run("call answered") { sql in
            try sql.execute(#"UPDATE "call_parties" SET "answered_at" = ? WHERE "call_id" = ?"#, time.storageMillis, id.rawValue)
        }
    }

    public func release(_ id: CallID) async {
        reserved.withLock { _ = $0.remove(id.rawValue) }
        await run("call released") { sql in try sql.execute(#"DELETE FROM "call_parties" WHERE "call_id" = ?"#, id.rawValue) }
    }

    public func node(of id: CallID) async -> String? {
        do {
            return try await database.read { sql in
                try sql.scalar(#"SELECT "node" FROM "call_parties" WHERE "call_id" = ? LIMIT 1"#, id.rawValue, as: String.self)
            }
        } catch {
            // Read as "held here", so the command hears `call_not_found`: said here, or nothing would.
            logger.error("call directory not read", metadata: ["call": "\(id)", "error": "\(String(reflecting: error))"])
            return nil
        }
    }

    public func callsElsewhere(of user: UserID) async -> [(call: CallID, node: String)] {
        let me = node
        do {
            return try await database.read { sql in
                try sql.query(#"SELECT "call_id", "node" FROM "call_parties" WHERE "user_id" = ? AND "node" <> ?"#, user.rawValue, me)
                    .map { (CallID(rawValue: try $0.decode(column: "call_id", as: String.self)), try $0.decode(column: "node", as: String.self)) }
            }
        } catch {
            logger.error("call directory not read", metadata: ["user": "\(user)", "error": "\(String(reflecting: error))"])
            return []
        }
    }

    public func send(_ request: CallRequest, to node: String) async throws(ParleyError) -> CallReply {
        CallReply.decode(try await requests.request(request.json, topic: CallRequest.topic, to: node, timeout: Self.requestTimeout))
    }

    /// Renews this node's rows and ends the calls of nodes that stopped, every ``heartbeat``
    /// until ``stop()``.
    /// `live`: the calls this node's book holds (its rows of any other call it is not placing
    /// are leftovers of a release that failed, and go); `abandoned`: what ends the calls of a node that stopped.
    public func start(live: @escaping @Sendable () async -> [CallID], abandoned: @escaping @Sendable ([AbandonedCall]) async -> Void) {
        let task = Task { await self.run(live: live, abandoned: abandoned) }
        loop.withLock { $0 = task }
    }

    public func stop() async {
        loop.withLock { $0 }?.cancel()
    }

    func run(live: @escaping @Sendable () async -> [CallID], abandoned: @escaping @Sendable ([AbandonedCall]) async -> Void) async {
        while !Task.isCancelled {
            let now = Date()
            let held = Array(Set(await live().map(\.rawValue)).union(reserved.withLock { $0 }))
            // A row is only a leftover once older than placing a call takes (its reservation comes first).
            let settled = now.addingTimeInterval(-Self.expiry).storageMillis
            await run("call directory renewed") { [node] sql in
                try sql.execute(#"UPDATE "call_parties" SET "seen_at" = ? WHERE "node" = ?"#, now.storageMillis, node)
                let keep = held.isEmpty ? "" : #" AND "call_id" NOT IN (\#(sqlPlaceholders(held.count)))"#
                _ = try sql.query(#"DELETE FROM "call_parties" WHERE "node" = ? AND "started_at" < ?\#(keep)"#,
                              binding: [.text(node), .integer(settled)] + held.map { .text($0) })
            }
            do {
                let lost = try await claimAbandoned(before: now.addingTimeInterval(-Self.expiry), except: node)
                if !lost.isEmpty { await abandoned(lost) }
            } catch {
                // Tried again at the next heartbeat: the rows stay until a node claims them.
                logger.error("abandoned calls: not claimed", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: Self.heartbeat)
        }
    }

    /// Takes the rows of other nodes not renewed since `cutoff` out of the directory, as calls.
    func claimAbandoned(before cutoff: Date, except me: String) async throws -> [AbandonedCall] {
        let rows = try await database.write { sql in
            try sql.query(#"""
                DELETE FROM "call_parties" WHERE "seen_at" < ? AND "node" <> ?
                RETURNING "call_id", "node", "caller_id", "callee_id", "media", "started_at", "answered_at", "seen_at"
                """#, cutoff.storageMillis, me)
        }
        var calls: [CallID: AbandonedCall] = [:]
        for row in rows {
            let id = CallID(rawValue: try row.decode(column: "call_id", as: String.self))
            guard calls[id] == nil else { continue }
            let parties = CallParties(id: id, caller: UserID(rawValue: try row.decode(column: "caller_id", as: String.self)),
                                      callee: UserID(rawValue: try row.decode(column: "callee_id", as: String.self)),
                                      media: CallMedia(rawValue: try row.decode(column: "media", as: String.self)) ?? .audio,
                                      startedAt: Date(storageMillis: try row.decode(column: "started_at", as: Int64.self)))
            calls[id] = AbandonedCall(parties: parties, node: try row.decode(column: "node", as: String.self),
                                      answeredAt: try row.decode(column: "answered_at", as: Int64?.self).map(Date.init(storageMillis:)),
                                      lastSeen: Date(storageMillis: try row.decode(column: "seen_at", as: Int64.self)))
        }
        return calls.values.sorted { $0.parties.id.rawValue < $1.parties.id.rawValue }
    }

    private func run(_ what: String, _ body: @escaping @Sendable (Transaction) throws -> Void) async {
        do { try await database.write(body) } catch {
            logger.error("\(what): not written", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

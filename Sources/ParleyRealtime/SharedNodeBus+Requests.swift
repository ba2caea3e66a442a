import Foundation
import ParleyCore
import ParleyProtocol
import ParleyStorage

/// Requests between two nodes over the same channel: a `request` signal addressed to one node,
/// answered by the handler of its topic with a `reply` to the asker. A signal too large for one
/// notification (an SDP offer with its candidates can be) is stored in `node_parcels` and only
/// its id is sent; the receiver reads it back. Parcels are deleted a minute after they were made.
extension SharedNodeBus {
    public var nodeID: String { node }

    public func request(_ body: String, topic: String, to node: String, timeout: Duration) async throws(ParleyError) -> String {
        let id = UUID().uuidString.lowercased()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.pending.withLock { $0.removeValue(forKey: id) }?.resume(throwing: NodeRequestErrors.unreachable)
        }
        defer { timer.cancel() }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                pending.withLock { $0[id] = continuation }
                send(NodeSignal(node: self.node, kind: .request, payload: body, to: node, request: id, topic: topic))
            }
        } catch let error as ParleyError {
            throw error
        } catch {
            throw NodeRequestErrors.unreachable
        }
    }

    public func answer(_ topic: String, with handler: @escaping @Sendable (String) async -> String) {
        handlers.withLock { $0[topic] = handler }
    }

    /// Another node's request for this one: its topic's handler answers, in a task of its own.
    func answer(_ signal: NodeSignal) {
        guard let id = signal.request, let topic = signal.topic, let body = signal.payload,
              let handler = handlers.withLock({ $0[topic] }) else {
            logger.warning("a node request nobody here answers", metadata: ["topic": "\(signal.topic ?? "-")"])
            return
        }
        Task {
            let reply = await handler(body)
            send(NodeSignal(node: node, kind: .reply, payload: reply, to: signal.node, request: id))
        }
    }

    /// The answer to one of this node's requests (late ones, after their timeout, are dropped).
    func replied(_ signal: NodeSignal) {
        guard let id = signal.request, let body = signal.payload else { return }
        pending.withLock { $0.removeValue(forKey: id) }?.resume(returning: body)
    }

    /// Fails every request still waiting: the bus is stopping.
    func failPending() {
        let waiting = pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        for continuation in waiting.values { continuation.resume(throwing: NodeRequestErrors.unreachable) }
    }

    /// Stores a signal too large for a notification; what goes out instead names the stored one.
    func parcel(_ signal: NodeSignal) async throws -> String? {
        guard let data = try? JSONEncoder().encode(signal) else { return nil }
        let id = UUID().uuidString.lowercased(), now = Date()
        try await database.write { sql in
            try sql.execute(#"DELETE FROM "node_parcels" WHERE "created_at" < ?"#, now.addingTimeInterval(-60).storageMillis)
            try sql.execute(#"INSERT INTO "node_parcels" ("id", "body", "created_at") VALUES (?, ?, ?)"#,
                            id, String(decoding: data, as: UTF8.self), now.storageMillis)
        }
        return NodeSignal(node: node, kind: .parcel, payload: id, to: signal.to).json
    }

    /// Reads a stored signal back and carries it out. (Its order among the signals around it may
    /// change: parcels carry requests and replies, which wait for each other by id, not by order.)
    func unpack(_ signal: NodeSignal) {
        guard let id = signal.payload else { return }
        Task {
            do {
                let body = try await database.read { sql in try sql.scalar(#"SELECT "body" FROM "node_parcels" WHERE "id" = ?"#, id, as: String.self) }
                guard let body, let inner = NodeSignal.decode(body), inner.isFor(node) else { return }
                receive(inner)
            } catch {
                logger.error("node parcel not read", metadata: ["parcel": "\(id)", "error": "\(String(reflecting: error))"])
            }
        }
    }
}

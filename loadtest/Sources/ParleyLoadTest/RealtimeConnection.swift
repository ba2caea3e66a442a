import Foundation
import NIOCore
import NIOWebSocket
import Synchronization

/// One device on `GET /v1/realtime`: commands out with their replies matched by `id`, events in.
///
/// Events go to the `onEvent` handler given at connect when it takes them; the rest wait in a
/// small buffer for ``event(timeout:where:)`` (a `call.incoming` may arrive before its waiter).
/// Both run on the socket's event loop as each frame is read (``RealtimeFrameHandler``), so they
/// must be quick; the socket itself is in `RealtimeConnection+Socket.swift`.
public final class RealtimeConnection: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case closed
        case timedOut(String)
        case refused(type: String, code: String?)

        public var description: String {
            switch self {
            case .closed: "the realtime socket closed"
            case .timedOut(let what): "timed out waiting for \(what)"
            case .refused(let type, let code): "\(type) refused: \(code ?? "?")"
            }
        }
    }

    /// Returns true when it consumed the event.
    public typealias EventHandler = @Sendable (ServerFrame) -> Bool

    /// Who takes a command's reply: an awaiting ``command(_:_:timeout:)`` or ``send(_:_:onReply:)``'s handler.
    private enum ReplyTaker {
        case awaiting(CheckedContinuation<ServerFrame, any Error>)
        case handler(@Sendable (ServerFrame) -> Void)
    }

    private struct State {
        var nextID = 0
        var replies: [String: ReplyTaker] = [:]
        var waiters: [(id: Int, match: @Sendable (ServerFrame) -> Bool, continuation: CheckedContinuation<ServerFrame, any Error>)] = []
        var buffered: [ServerFrame] = []
        var closed = false
        /// The upgraded channel, from before its first frame (the hello ``connect`` waits for)
        /// until ``close()``: commands are written to it from the caller's thread, one event-loop
        /// hop each.
        var channel: (any Channel)?
    }

    static let bufferLimit = 256
    private let state = Mutex(State())
    private let onEvent: EventHandler?

    /// Connects and waits for the server's `hello`.
    public static func connect(url: String, token: String, onEvent: EventHandler? = nil,
                               timeout: Duration = .seconds(15)) async throws -> RealtimeConnection {
        let connection = RealtimeConnection(url: url, token: token, onEvent: onEvent)
        _ = try await connection.event(timeout: timeout) { $0.type == "hello" }
        return connection
    }

    private init(url: String, token: String, onEvent: EventHandler?) {
        self.onEvent = onEvent
        open(url: url, token: token)
    }

    /// Connects one device per token, a few dozen handshakes at a time; `onEvent(i)` is the
    /// handler of the `i`th. In the order of `tokens`.
    public static func connectAll(url: String, tokens: [String], onEvent: (Int) -> EventHandler? = { _ in nil }) async throws
        -> [RealtimeConnection] {
        try await withThrowingTaskGroup(of: (Int, RealtimeConnection).self) { group in
            var connections: [RealtimeConnection?] = Array(repeating: nil, count: tokens.count)
            var next = 0
            func start() {
                let index = next, token = tokens[index], handler = onEvent(index)
                group.addTask { (index, try await RealtimeConnection.connect(url: url, token: token, onEvent: handler)) }
                next += 1
            }
            while next < min(32, tokens.count) { start() }
            while let (index, connection) = try await group.next() {
                connections[index] = connection
                if next < tokens.count { start() }
            }
            return connections.compactMap { $0 }
        }
    }

    /// Sends a command and waits for its reply; a refusal (`ok: false`) throws with its code.
    @discardableResult
    public func command(_ type: String, _ fields: [String: Any] = [:], timeout: Duration = .seconds(30)) async throws -> ServerFrame {
        let id = state.withLock { state in
            state.nextID += 1
            return "c\(state.nextID)"
        }
        var object = fields
        object["id"] = id
        object["type"] = type
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.resolve(reply: id, with: .failure(Failure.timedOut(type)))
        }
        defer { timer.cancel() }
        let reply = try await withCheckedThrowingContinuation { continuation in
            let closed = state.withLock { state in
                if state.closed { return true }
                state.replies[id] = .awaiting(continuation)
                return false
            }
            if closed { continuation.resume(throwing: Failure.closed) } else { write(text) }
        }
        guard reply.ok else { throw Failure.refused(type: type, code: reply.errorCode) }
        return reply
    }

    /// Sends a command of string fields without waiting for its reply; `onReply` gets it (or
    /// nothing if the socket closes). Its text is written directly (``JSONText``), not through a
    /// dictionary, and handed to the socket by the caller's thread, not by a writer task woken for each message.
    public func send(_ type: String, _ fields: KeyValuePairs<String, String>, onReply: @escaping @Sendable (ServerFrame) -> Void) async {
        let id = state.withLock { state in
            state.nextID += 1
            let id = "s\(state.nextID)"
            state.replies[id] = .handler(onReply)
            return id
        }
        var text = JSONText()
        text.add("type", type)
        text.add("id", id)
        for (key, value) in fields { text.add(key, value) }
        write(text.finish())
    }

    /// The first event (already buffered or still to come) that `match` accepts.
    public func event(timeout: Duration = .seconds(30), where match: @escaping @Sendable (ServerFrame) -> Bool) async throws -> ServerFrame {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.resolve(waiter: id, with: .failure(Failure.timedOut("an event")))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let outcome: Result<ServerFrame, any Error>? = state.withLock { state in
                if let index = state.buffered.firstIndex(where: match) { return .success(state.buffered.remove(at: index)) }
                if state.closed { return .failure(Failure.closed) }
                state.waiters.append((id, match, continuation))
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Whether the socket has closed (either side) or never opened.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Closes the socket: a close frame after what was written before, then the server's answer
    /// closes the channel, and with it anything still waiting fails with ``Failure/closed``.
    public func close() {
        let channel = state.withLock { state in
            defer { state.channel = nil }
            return state.channel
        }
        guard let channel else { return }
        var code = channel.allocator.buffer(capacity: 2)
        code.write(webSocketErrorCode: .normalClosure)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: code), promise: nil)
    }

    /// A text frame, masked by the channel's ``RealtimeFrameHandler``; dropped once closing or closed.
    private func write(_ text: String) {
        guard let channel = state.withLock({ $0.channel }) else { return }
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text)), promise: nil)
    }

    /// The socket is upgraded: writes go to `channel` from now on.
    func opened(_ channel: any Channel) {
        state.withLock { state in
            if !state.closed { state.channel = channel }
        }
    }

    /// A frame read from the socket, on its event loop: to the command it answers, else to the
    /// first waiter it matches, else to `onEvent`, else into the buffer.
    func deliver(_ frame: ServerFrame) {
        if let replyTo = frame.replyTo {
            switch state.withLock({ $0.replies.removeValue(forKey: replyTo) }) {
            case .awaiting(let continuation): continuation.resume(returning: frame)
            case .handler(let handler): handler(frame)
            case nil: break
            }
            return
        }
        let waiter = state.withLock { state -> CheckedContinuation<ServerFrame, any Error>? in
            guard let index = state.waiters.firstIndex(where: { $0.match(frame) }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        if let waiter { waiter.resume(returning: frame); return }
        if let onEvent, onEvent(frame) { return }
        // A waiter may have registered since the look above (it found the buffer empty then):
        // look again in the same critical section that buffers, or the event would sit in the
        // buffer while its waiter times out.
        let late = state.withLock { state -> CheckedContinuation<ServerFrame, any Error>? in
            if let index = state.waiters.firstIndex(where: { $0.match(frame) }) {
                return state.waiters.remove(at: index).continuation
            }
            state.buffered.append(frame)
            if state.buffered.count > Self.bufferLimit { state.buffered.removeFirst() }
            return nil
        }
        late?.resume(returning: frame)
    }

    private func resolve(reply id: String, with result: Result<ServerFrame, any Error>) {
        if case .awaiting(let continuation) = state.withLock({ $0.replies.removeValue(forKey: id) }) {
            continuation.resume(with: result)
        }
    }

    private func resolve(waiter id: Int, with result: Result<ServerFrame, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<ServerFrame, any Error>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        continuation?.resume(with: result)
    }

    /// The socket has closed (or never opened): every waiter and awaiting command fails; a second
    /// call (the handler and the channel both report the close) finds none left.
    func fail() {
        let (replies, waiters) = state.withLock { state in
            state.closed = true
            state.channel = nil
            defer { state.replies = [:]; state.waiters = [] }
            let awaiting = state.replies.values.compactMap { taker -> CheckedContinuation<ServerFrame, any Error>? in
                if case .awaiting(let continuation) = taker { continuation } else { nil }
            }
            return (awaiting, state.waiters.map(\.continuation))
        }
        for continuation in replies { continuation.resume(throwing: Failure.closed) }
        for continuation in waiters { continuation.resume(throwing: Failure.closed) }
    }
}

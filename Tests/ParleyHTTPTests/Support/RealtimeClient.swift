import Foundation
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Testing

/// A parsed server frame.
struct Frame: @unchecked Sendable, CustomStringConvertible {   // JSON values are read-only here
    let text: String
    let json: [String: Any]

    init(_ text: String) {
        self.text = text
        json = ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) ?? [:]
    }

    var type: String? { json["type"] as? String }
    var seq: Int? { json["seq"] as? Int }
    var ok: Bool? { json["ok"] as? Bool }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    subscript(key: String) -> Any? { json[key] }
    var description: String { text }
}

/// A device on the realtime WebSocket, as a test drives it: send commands, await frames.
final class RealtimeClient: Sendable {
    private let inbox = Inbox()
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<WebSocketCloseFrame?, any Error>

    actor Inbox {
        var frames: [String] = []
        var closed = false
        func push(_ frame: String) { frames.append(frame) }
        func close() { closed = true }
        func take(_ match: (Frame) -> Bool) -> Frame? {
            guard let index = frames.firstIndex(where: { match(Frame($0)) }) else { return nil }
            return Frame(frames.remove(at: index))
        }
        func all() -> [Frame] { frames.map(Frame.init) }
    }

    /// Connects with the token in the query (or the header when `useHeader`); returns it and its
    /// `hello`, waited for up to 10 s (the PostgreSQL pass runs a hundred servers on two cores).
    static func connect(port: Int, token: String, useHeader: Bool = false, fileID: String = #fileID, line: Int = #line)
        async throws -> (RealtimeClient, Frame) {
        let client = RealtimeClient(port: port, token: token, useHeader: useHeader)
        let hello = try await client.next(timeout: .seconds(10), fileID: fileID, line: line) { $0.type == "hello" }
        return (client, hello)
    }

    private init(port: Int, token: String, useHeader: Bool) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        outgoing = continuation
        let inbox = self.inbox
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        var url = "ws://127.0.0.1:\(port)/v1/realtime"
        if useHeader { configuration.additionalHeaders[.authorization] = "Bearer \(token)" } else { url += "?token=\(token)" }
        var logger = Logger(label: "ws-test")
        logger.logLevel = .critical
        task = Task { [configuration, url, logger] in
            defer { Task { await inbox.close() } }
            return try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { await inbox.push(text) }
                        }
                    }
                    group.addTask {
                        for await text in stream { try await outbound.write(.text(text)) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// The next frame matching `match`, waiting up to `timeout`.
    func next(timeout: Duration = .seconds(5), fileID: String = #fileID, line: Int = #line,
              _ match: @escaping @Sendable (Frame) -> Bool) async throws -> Frame {
        let started = ContinuousClock.now
        let deadline = started + timeout
        while ContinuousClock.now < deadline {
            if let frame = await inbox.take(match) { return frame }
            if await inbox.closed { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        if let frame = await inbox.take(match) { return frame }
        throw RealtimeClientError.noFrame(await inbox.all().map(\.text), closed: await inbox.closed, after: ContinuousClock.now - started,
                                          at: "\(fileID):\(line)")
    }

    /// Whether a matching frame arrives within `window` (for asserting that nothing comes).
    func receives(within window: Duration = .milliseconds(300), _ match: @escaping @Sendable (Frame) -> Bool) async -> Bool {
        (try? await next(timeout: window, match)) != nil
    }

    func sendRaw(_ text: String) { outgoing.yield(text) }

    /// Sends a command and returns its reply.
    func command(_ type: String, _ fields: [String: any Sendable] = [:], fileID: String = #fileID, line: Int = #line) async throws -> Frame {
        let id = UUID().uuidString
        var object = fields
        object["id"] = id
        object["type"] = type
        let data = try JSONSerialization.data(withJSONObject: object)
        sendRaw(String(decoding: data, as: UTF8.self))
        return try await next(fileID: fileID, line: line) { $0["replyTo"] as? String == id }
    }

    /// Events of `type` (with a seq) in arrival order, waiting until there are `count`.
    func events(_ type: String, count: Int, timeout: Duration = .seconds(5)) async throws -> [Frame] {
        var found: [Frame] = []
        for _ in 0..<count { found.append(try await next(timeout: timeout) { $0.type == type }) }
        return found
    }

    var isClosed: Bool { get async { await inbox.closed } }

    /// Every frame received and not yet taken, in arrival order.
    func received() async -> [Frame] { await inbox.all() }

    /// The close frame the server sent, once the connection has ended.
    func closeFrame() async throws -> WebSocketCloseFrame? { try await task.value }

    func close() {
        outgoing.finish()
    }

    enum RealtimeClientError: Error, CustomStringConvertible {
        case noFrame([String], closed: Bool, after: Duration, at: String)
        var description: String {
            switch self {
            case .noFrame(let frames, let closed, let after, let caller):
                "no matching frame for \(caller) \(closed ? "(the connection closed)" : "") after \(after); received \(frames.count) others, last: \(frames.suffix(5))"
            }
        }
    }
}

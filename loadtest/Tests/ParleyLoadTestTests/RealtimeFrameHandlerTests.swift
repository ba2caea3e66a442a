import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import ParleyLoadTest

@Suite("The realtime socket's frame handler: messages reassembled, client frames masked, pings answered, closes echoed (RFC 6455)")
struct RealtimeFrameHandlerTests {
    /// A handler in an active embedded channel, and what it handed on.
    private final class Harness {
        var received: [String] = []
        var closedCount = 0
        let channel = EmbeddedChannel()

        init() throws {
            let handler = RealtimeFrameHandler(receive: { [unowned self] in received.append($0.text) },
                                               closed: { [unowned self] in closedCount += 1 })
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        }

        /// A frame from the server: unmasked (§5.1).
        func serverSends(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) throws {
            try channel.writeInbound(WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(string: text)))
        }

        func written() throws -> [WebSocketFrame] {
            var frames: [WebSocketFrame] = []
            while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
            return frames
        }
    }

    // A written frame carries its mask key and its payload still plain: the encoder after the
    // handler applies the one to the other. So the tests read `data`, not `unmaskedData`.
    private func closeCode(_ frame: WebSocketFrame) -> WebSocketErrorCode? {
        var data = frame.data
        return data.readWebSocketErrorCode()
    }

    @Test func aFragmentedTextIsOneMessageAndAPingBetweenItsFramesIsAnswered() throws {
        let harness = try Harness()
        try harness.serverSends(.text, #"{"type":"mess"#, fin: false)
        try harness.serverSends(.ping, "p1")
        try harness.serverSends(.continuation, #"age.new","n":"#, fin: false)
        #expect(harness.received.isEmpty)
        try harness.serverSends(.continuation, "1}")
        try harness.serverSends(.text, #"{"type":"hello"}"#)
        #expect(harness.received == [#"{"type":"message.new","n":1}"#, #"{"type":"hello"}"#])
        // The pong carries the ping's payload (§5.5.3), masked like every client frame (§5.3).
        let pong = try #require(try harness.written().first)
        #expect(pong.opcode == .pong && pong.fin)
        #expect(pong.maskKey != nil)
        #expect(pong.data == ByteBuffer(string: "p1"))
    }

    @Test func textWrittenThroughTheChannelIsMasked() throws {
        let harness = try Harness()
        try harness.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}"))).wait()
        let frame = try #require(try harness.written().first)
        #expect(frame.maskKey != nil)
        #expect(frame.data == ByteBuffer(string: "{}"))
    }

    @Test func aServersCloseIsEchoedWithItsCodeAndTheChannelClosed() throws {
        let harness = try Harness()
        var payload = ByteBuffer()
        payload.write(webSocketErrorCode: .goingAway)
        payload.writeString("server shutdown")
        try harness.channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
        let echo = try #require(try harness.written().first)
        #expect(echo.opcode == .connectionClose && echo.maskKey != nil)
        #expect(closeCode(echo) == .goingAway)
        #expect(echo.data.readableBytes == 2)
        #expect(!harness.channel.isActive)
        #expect(harness.closedCount >= 1)
    }

    @Test func afterOurCloseNothingIsWrittenAndTheAnswerIsNotEchoed() throws {
        let harness = try Harness()
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .normalClosure)
        harness.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: code), promise: nil)
        harness.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}")), promise: nil)
        try harness.serverSends(.ping, "late")
        #expect(try harness.written().map(\.opcode) == [.connectionClose])
        try harness.channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
        #expect(try harness.written().isEmpty)
        #expect(!harness.channel.isActive)
    }

    @Test func aServerThatNeverAnswersOurCloseIsHungUpOn() throws {
        let harness = try Harness()
        harness.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer()), promise: nil)
        harness.channel.embeddedEventLoop.advanceTime(by: RealtimeFrameHandler.closeTimeout - .milliseconds(1))
        #expect(harness.channel.isActive)
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!harness.channel.isActive)
        #expect(harness.closedCount >= 1)
    }

    @Test func aContinuationWithoutAStartIsAProtocolError() throws {
        let harness = try Harness()
        try harness.serverSends(.continuation, "}")
        let close = try #require(try harness.written().first)
        #expect(closeCode(close) == .protocolError)
        #expect(!harness.channel.isActive)
        #expect(harness.received.isEmpty)
    }

    @Test func aMessageReassembledPastTheLimitIsRefused() throws {
        let harness = try Harness()
        let half = String(repeating: "x", count: RealtimeFrameHandler.maxMessageSize / 2)
        try harness.serverSends(.text, half, fin: false)
        try harness.serverSends(.continuation, half, fin: false)
        try harness.serverSends(.continuation, "x")
        let close = try #require(try harness.written().first)
        #expect(closeCode(close) == .messageTooLarge)
        #expect(harness.received.isEmpty)
    }

    @Test func binaryMessagesAreSkippedWholeEvenWhenFragmented() throws {
        let harness = try Harness()
        try harness.serverSends(.binary, "ab", fin: false)
        try harness.serverSends(.continuation, "cd")
        try harness.serverSends(.text, #"{"type":"after"}"#)
        #expect(harness.received == [#"{"type":"after"}"#])
        #expect(try harness.written().isEmpty)
    }

    @Test func endpointsOfRealtimeURLs() throws {
        let plain = try #require(RealtimeConnection.Endpoint("ws://127.0.0.1:18282/v1/realtime"))
        #expect(plain.host == "127.0.0.1" && plain.port == 18282 && !plain.tls)
        #expect(plain.target == "/v1/realtime" && plain.hostHeader == "127.0.0.1:18282" && plain.serverName == nil)
        let secure = try #require(RealtimeConnection.Endpoint("wss://chat.example.org/v1/realtime?x=1"))
        #expect(secure.port == 443 && secure.tls && secure.target == "/v1/realtime?x=1")
        #expect(secure.hostHeader == "chat.example.org" && secure.serverName == "chat.example.org")
        #expect(RealtimeConnection.Endpoint("http://127.0.0.1/v1/realtime") == nil)
    }
}

import NIOCore
import NIOWebSocket

/// The realtime socket's WebSocket end once the upgrade is done, on the channel's event loop: a
/// received text message becomes a ``ServerFrame`` and is handed to `receive` right there, with no
/// task woken for it (the chat generator reads ~17 500 frames a second beside the server it measures).
///
/// A client's frames are masked (RFC 6455 §5.3): every frame written through the channel gets a
/// fresh key here. Pings are answered, a close is echoed and the channel closed (§5.5.1); nothing
/// is written after a close.
final class RealtimeFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The largest message, reassembled, as the largest frame.
    static let maxMessageSize = 1 << 20
    /// How long a close we sent waits for the server's before the channel is closed anyway.
    static let closeTimeout = TimeAmount.seconds(5)

    private let receive: (ServerFrame) -> Void
    private let closed: () -> Void
    /// A fragmented message's frames so far: text (kept) or binary (skipped, as it always was).
    private var partial: (text: Bool, data: ByteBuffer)?
    private var closeSent = false

    /// `receive` gets each text message; `closed` is called when the channel goes inactive (an
    /// error closes it).
    init(receive: @escaping (ServerFrame) -> Void, closed: @escaping () -> Void) {
        self.receive = receive
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard partial == nil else { return fail(context, .protocolError) }
            if frame.fin {
                if frame.opcode == .text { deliver(frame.unmaskedData) }
            } else {
                partial = (frame.opcode == .text, frame.unmaskedData)
            }
        case .continuation:
            guard case (let text, var data)? = partial else { return fail(context, .protocolError) }
            partial = nil
            var more = frame.unmaskedData
            guard data.readableBytes + more.readableBytes <= Self.maxMessageSize else { return fail(context, .messageTooLarge) }
            data.writeBuffer(&more)
            if frame.fin {
                if text { deliver(data) }
            } else {
                partial = (text, data)
            }
        case .ping:
            write(context, WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
        case .connectionClose:
            // Echo the status code (§5.5.1) unless this answers our own close; then hang up.
            if !closeSent {
                let reason = frame.unmaskedData
                let code = reason.getSlice(at: reason.readerIndex, length: 2) ?? context.channel.allocator.buffer(capacity: 0)
                write(context, WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
            }
            context.close(promise: nil)
        default:
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        guard !closeSent else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if frame.opcode == .connectionClose {
            closeSent = true
            let channel = context.channel
            context.eventLoop.scheduleTask(in: Self.closeTimeout) { channel.close(promise: nil) }
        }
        var masked = frame
        masked.maskKey = .random()
        context.write(wrapOutboundOut(masked), promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func deliver(_ data: ByteBuffer) {
        if let frame = ServerFrame(text: String(buffer: data), receivedAt: .now) { receive(frame) }
    }

    /// Writes from this handler: masked and flushed, and the last if it is a close.
    private func write(_ context: ChannelHandlerContext, _ frame: WebSocketFrame) {
        guard !closeSent else { return }
        closeSent = frame.opcode == .connectionClose
        var masked = frame
        masked.maskKey = .random()
        context.writeAndFlush(wrapOutboundOut(masked), promise: nil)
    }

    /// Closes with `code` (§7.4.1) after a frame the protocol does not allow.
    private func fail(_ context: ChannelHandlerContext, _ code: WebSocketErrorCode) {
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        write(context, WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
        partial = nil
        context.close(promise: nil)
    }
}

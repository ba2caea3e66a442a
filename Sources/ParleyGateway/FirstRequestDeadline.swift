import HummingbirdCore
import Logging
import NIOCore

/// Closes a connection whose first request head has not arrived within `http.idleTimeoutSeconds`
/// of its opening: a client that connects and sends nothing, or stalls in the TLS handshake or
/// halfway through the head, would otherwise hold a file descriptor for good.
///
/// Hummingbird's own idle timeout (`HTTPConnectionStateHandler`) does not cover that time: the
/// WebSocket upgrade pipeline adds it only once the first head turned out not to be an upgrade,
/// and never to an upgraded socket. From there it takes over (keep-alive connections left idle,
/// request bodies that stall); this deadline takes itself out as the head's last byte goes by. It
/// is a deadline, not an idle timer: trickling a byte now and then does not extend it.
final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let name = "parley.first-request-deadline"

    private let within: TimeAmount
    private var timer: Scheduled<Void>?
    /// The last four bytes read, to see the blank line that ends the head (RFC 9112 §2.1).
    private var tail: UInt32 = 0
    /// Whether the request line has begun: blank lines before it are skipped by the parser
    /// (RFC 9112 §2.2), so they must not count as a head's end either.
    private var started = false

    init(within: TimeAmount) {
        self.within = within
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let deadline = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: within) {
            // Told as the end of the client's input, which the upgrade handler answers by closing
            // the connection and Hummingbird logs at trace: a close from here would be logged as
            // an error per connection, a log line any port scanner could write.
            deadline.value.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }

    /// Passes everything on; once the head's blank line has gone by, the deadline is met and the
    /// handler leaves — here, on the event loop, as the bytes are read: were it left to whoever
    /// handles the head (an upgrade's authentication runs as a task), a busy moment between the
    /// two could let the deadline close a connection whose head had come in time.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var ended = false
        unwrapInboundIn(data).withUnsafeReadableBytes { bytes in
            for byte in bytes {
                if !started {
                    guard byte != 0x0D, byte != 0x0A else { continue }
                    started = true
                }
                tail = tail << 8 | UInt32(byte)
                if tail == 0x0D0A_0D0A {
                    ended = true
                    break
                }
            }
        }
        context.fireChannelRead(data)
        if ended {
            timer?.cancel()
            timer = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    /// `Base`'s connections, each with the deadline in front of `Base`'s own handlers (behind
    /// TLS when `Base` is wrapped in it, so the handshake counts in the time), and for the whole
    /// connection's life a reader that stops reading timed out (`StalledReaderTimeout`).
    struct Guarded<Base: ServerChildChannel>: ServerChildChannel {
        typealias Value = Base.Value

        let base: Base
        let within: TimeAmount

        func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(StalledReaderTimeout(within: within), name: StalledReaderTimeout.name)
                try channel.pipeline.syncOperations.addHandler(FirstRequestDeadline(within: within), name: FirstRequestDeadline.name)
            }.flatMap {
                base.setup(channel: channel, logger: logger)
            }
        }

        func handle(value: Value, logger: Logger) async {
            await base.handle(value: value, logger: logger)
        }
    }
}

@available(*, unavailable)
extension FirstRequestDeadline: Sendable {}

import NIOCore

/// Closes a connection whose peer has stopped taking what it is sent: once the connection has
/// stayed unwritable (NIO's buffer past its high-water mark, the kernel's full) for
/// `http.idleTimeoutSeconds` together, it goes. A download nobody reads — a file, a page of
/// history — would otherwise hold its connection, its file and the task that writes it for
/// good: Hummingbird's idle handler does not time a response while it is written. A reader that
/// is slow but moves keeps its connection: each time it takes enough for the buffer to drain
/// below its low-water mark, the clock starts over. An upgraded realtime socket is covered too;
/// its own queue (`SocketWriter`) bounds what waits for it before that.
final class StalledReaderTimeout: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    static let name = "parley.stalled-reader-timeout"

    private let within: TimeAmount
    private var timer: Scheduled<Void>?

    init(within: TimeAmount) {
        self.within = within
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            let stalled = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: within) {
                stalled.value.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension StalledReaderTimeout: Sendable {}

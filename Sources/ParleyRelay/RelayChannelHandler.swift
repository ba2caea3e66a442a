import NIOCore

/// The media socket's only handler: hands each datagram to the ``RelayEngine`` and flushes once
/// per read batch, so the writes queued while handling a `recvmmsg` batch leave in one
/// `sendmmsg`.
final class RelayChannelHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let engine: RelayEngine

    init(engine: RelayEngine) {
        self.engine = engine
    }

    func handlerAdded(context: ChannelHandlerContext) {
        engine.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        engine.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        engine.receive(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        engine.flushIfNeeded()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Datagrams queued while unwritable stay queued; nothing to do but keep reading.
        context.fireChannelWritabilityChanged()
    }

    /// UDP errors (e.g. ICMP port unreachable surfacing as ECONNREFUSED) must not close the
    /// shared socket.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        engine.logger.debug("media socket error", metadata: ["error": "\(error)"])
    }
}

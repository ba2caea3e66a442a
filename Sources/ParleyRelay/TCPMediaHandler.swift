import NIOCore

/// The inbound end of one TCP media connection: admits it (or closes it past the pending
/// limit), arms the first-check timer, hands each frame to the engine through the server, and
/// closes the connection when the server says so. Runs on the connection's event loop.
final class TCPMediaHandler: ChannelInboundHandler {
    typealias InboundIn = TCPFrame

    let server: TCPMediaServer
    private var connection: TCPMediaConnection?
    private var timer: Scheduled<Void>?

    init(server: TCPMediaServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        guard let remote = channel.remoteAddress, let address = PeerAddress(remote)?.over(tcp: true) else {
            context.close(promise: nil)
            return
        }
        let connection = TCPMediaConnection(channel: channel, address: address, limit: server.configuration.tcpSendBufferBytes)
        guard server.admit(connection) else {
            context.close(promise: nil)
            return
        }
        self.connection = connection
        let server = self.server
        let timeout = server.configuration.tcpFirstCheckTimeout.components
        timer = context.eventLoop.scheduleTask(
            in: .nanoseconds(timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000)
        ) {
            if server.expire(connection) { channel.close(promise: nil) }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection else { return }
        if !server.receive(unwrapInboundIn(data), on: connection) {
            self.connection = nil
            server.closed(connection)
            context.close(promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        server.readComplete()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        if let connection { server.closed(connection) }
        connection = nil
        context.fireChannelInactive()
    }

    /// Resets and other socket errors end the connection; they are not the relay's to report.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A bare TCP connection to the server, for what no HTTP client does: connect and say nothing,
/// stop halfway through a head or a body.
struct RawConnection {
    let channel: any Channel
    private let received: Received

    final class Received: Sendable {
        let text = Mutex("")
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let received: Received

        init(_ received: Received) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            received.text.withLock { $0 += String(buffer: bytes) }
        }
    }

    static func open(port: Int) async throws -> RawConnection {
        let received = Received()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, received: received)
    }

    /// What the server sent so far.
    var text: String { received.text.withLock { $0 } }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// How long after `start` the server had closed the connection, to 20 ms; nil when it is
    /// still open `limit` after `start` (it is then closed here).
    func closed(since start: ContinuousClock.Instant, within limit: Duration) async throws -> Duration? {
        while ContinuousClock.now - start < limit {
            if !channel.isActive { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(20))
        }
        try? await channel.close()
        return nil
    }

    /// Waits up to `limit` for the server's bytes to contain `marker`.
    func waitFor(_ marker: String, within limit: Duration = .seconds(5)) async throws -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if text.contains(marker) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return text.contains(marker)
    }
}

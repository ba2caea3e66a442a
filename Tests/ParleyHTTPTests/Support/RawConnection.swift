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
        let count = Mutex(0)
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let received: Received

        init(_ received: Received) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            received.count.withLock { $0 += bytes.readableBytes }
            if received.text.withLock({ $0.utf8.count }) < 1 << 16 { received.text.withLock { $0 += String(buffer: bytes) } }
        }
    }

    /// `reading: false`: nothing is read (and the socket's receive buffer is small) until
    /// `startReading()` — a client that stops taking what it is sent.
    static func open(port: Int, reading: Bool = true) async throws -> RawConnection {
        let received = Received()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if !reading {
            bootstrap = bootstrap.channelOption(.autoRead, value: false)
                .channelOption(.socketOption(.so_rcvbuf), value: 4096)
        }
        let channel = try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, received: received)
    }

    /// What the server sent so far (its first 64 KiB as text), and how many bytes.
    var text: String { received.text.withLock { $0 } }
    var byteCount: Int { received.count.withLock { $0 } }

    /// Reads from here on, as a connection opened `reading: true` does.
    /// Reads from here on. A connection the server has closed already (its close can come with
    /// the unread bytes dropped, which the socket reports without a read) has nothing left to read:
    /// `closed(since:within:)` tells so.
    func startReading() async throws {
        do {
            try await channel.setOption(.autoRead, value: true).get()
        } catch ChannelError.ioOnClosedChannel {
            return
        }
        channel.read()
    }

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

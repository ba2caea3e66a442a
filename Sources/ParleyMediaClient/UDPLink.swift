import NIOCore
import NIOPosix
import Synchronization

/// A UDP socket to one peer, read as an async sequence of datagrams and clock ticks so one task
/// can drive a whole call without locks. Each received datagram is copied into its own array
/// (one allocation per packet in; sending reuses the caller's buffer). The datagrams of one socket
/// read travel to the task together, so a burst costs one wake-up rather than one per packet.
final class UDPLink {
    enum Event {
        case datagram([UInt8])
        case tick
    }

    static let vectorReadCount = 16

    let localPort: Int
    private let channel: any Channel
    private var inbox: AsyncStream<[Event]>.Iterator
    /// The rest of the last batch, handed out one by one.
    private var pending: [Event] = []
    private var pendingIndex = 0
    private var remote: SocketAddress?
    private let tickPending: TickGate

    /// Binds `host:0` and ticks every `tick`.
    init(host: String, tick: TimeAmount) async throws(MediaClientError) {
        let (stream, continuation) = AsyncStream<[Event]>.makeStream()
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
                // recvmmsg: up to 16 datagrams per system call, handed to the task as one batch.
                // NIO splits the read buffer between them, so it holds 16 whole datagrams.
                .channelOption(.datagramVectorReadMessageCount, value: Self.vectorReadCount)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.vectorReadCount * 2_048))
                .channelOption(.maxMessagesPerRead, value: 4)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Inbox(continuation))
                    }
                }
                .bind(host: host, port: 0).get()
        } catch {
            throw .setup("bind \(host): \(error)")
        }
        localPort = channel.localAddress?.port ?? 0
        // At most one tick waits unread, so an idle client's inbox does not grow.
        let tickPending = TickGate()
        self.tickPending = tickPending
        channel.eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { task in
            guard !tickPending.pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
            if case .terminated = continuation.yield([.tick]) { task.cancel() }
        }
        inbox = stream.makeAsyncIterator()
    }

    deinit {
        channel.close(promise: nil)
    }

    /// Where datagrams go from now on.
    func connect(to host: String, port: Int) throws(MediaClientError) {
        do { remote = try SocketAddress(ipAddress: host, port: port) } catch { throw .badAnswer("candidate \(host):\(port)") }
    }

    /// The next datagram or tick; nil once the socket is closed.
    func next() async -> Event? {
        if pendingIndex < pending.count {
            pendingIndex += 1
            return pending[pendingIndex - 1]
        }
        guard let batch = await inbox.next(), let event = batch.first else { return nil }
        pending = batch
        pendingIndex = 1
        if case .tick = event { tickPending.pending.store(false, ordering: .releasing) }
        return event
    }

    /// Queues a datagram; nothing leaves until ``flush()``.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let remote else { return }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        channel.write(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: nil)
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends what was queued (several writes go out as one `sendmmsg`).
    func flush() {
        channel.flush()
    }

    func close() {
        channel.close(promise: nil)
    }

    private final class TickGate: Sendable {
        let pending = Atomic<Bool>(false)
    }

    /// Collects the datagrams of one read on the event loop (its only thread) and hands them
    /// over together when the read completes.
    private final class Inbox: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let continuation: AsyncStream<[Event]>.Continuation
        private var batch: [Event] = []
        init(_ continuation: AsyncStream<[Event]>.Continuation) { self.continuation = continuation }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            batch.append(.datagram(Array(unwrapInboundIn(data).data.readableBytesView)))
        }
        func channelReadComplete(context: ChannelHandlerContext) {
            guard !batch.isEmpty else { return }
            continuation.yield(batch)
            batch = []
        }
        func channelInactive(context: ChannelHandlerContext) {
            if !batch.isEmpty { continuation.yield(batch) }
            continuation.finish()
        }
    }
}

import NIOCore
import NIOPosix
import ParleyRTP
import Synchronization

/// How a ``MediaClient`` reaches the answerer: UDP datagrams, or ICE over TCP (RFC 6544) as the
/// active side of a connection to the answer's passive TCP candidate, each packet framed with
/// its length (RFC 4571).
public enum MediaTransport: String, Sendable, CaseIterable {
    case udp
    case tcp
}

/// The client's socket to one peer, read as an async sequence of packets and clock ticks so one
/// task can drive a whole call without locks. Each received packet is copied into its own array
/// (one allocation per packet in; sending reuses the caller's buffer). The packets of one socket
/// read travel to the task together, so a burst costs one wake-up rather than one per packet.
///
/// UDP binds at once (its port goes into the offer); TCP connects in ``connect(to:port:)``, and
/// until then has no socket.
final class MediaLink {
    enum Event {
        case datagram([UInt8])
        case tick
    }

    static let vectorReadCount = 16

    let transport: MediaTransport
    /// The UDP port bound; for TCP 9, the port RFC 6544 §4.5 has active candidates announce.
    let localPort: Int
    private let eventLoop: any EventLoop
    private var channel: (any Channel)?
    private let continuation: AsyncStream<[Event]>.Continuation
    private var inbox: AsyncStream<[Event]>.Iterator
    /// The rest of the last batch, handed out one by one.
    private var pending: [Event] = []
    private var pendingIndex = 0
    private var remote: SocketAddress?
    private let tickPending: TickGate

    /// Binds `host:0` (UDP) and ticks every `tick`.
    init(host: String, transport: MediaTransport = .udp, tick: TimeAmount) async throws(MediaClientError) {
        let (stream, continuation) = AsyncStream<[Event]>.makeStream()
        self.transport = transport
        self.continuation = continuation
        eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        switch transport {
        case .udp:
            let channel: any Channel
            do {
                channel = try await DatagramBootstrap(group: eventLoop)
                    .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
                    // recvmmsg: up to 16 datagrams per system call, handed to the task as one batch.
                    // NIO splits the read buffer between them, so it holds 16 whole datagrams.
                    .channelOption(.datagramVectorReadMessageCount, value: Self.vectorReadCount)
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.vectorReadCount * 2_048))
                    .channelOption(.maxMessagesPerRead, value: 4)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                Inbox<AddressedEnvelope<ByteBuffer>>(continuation) { Array($0.data.readableBytesView) })
                        }
                    }
                    .bind(host: host, port: 0).get()
            } catch {
                throw .setup("bind \(host): \(error)")
            }
            self.channel = channel
            localPort = channel.localAddress?.port ?? 0
        case .tcp:
            localPort = 9
        }
        // At most one tick waits unread, so an idle client's inbox does not grow.
        let tickPending = TickGate()
        self.tickPending = tickPending
        eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { task in
            guard !tickPending.pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
            if case .terminated = continuation.yield([.tick]) { task.cancel() }
        }
        inbox = stream.makeAsyncIterator()
    }

    deinit {
        channel?.close(promise: nil)
        if channel == nil { continuation.finish() }
    }

    /// Where packets go from now on: for TCP, connects to `host:port` (framed, RFC 4571).
    func connect(to host: String, port: Int) async throws(MediaClientError) {
        let address: SocketAddress
        do { address = try SocketAddress(ipAddress: host, port: port) } catch { throw .badAnswer("candidate \(host):\(port)") }
        guard transport == .tcp else {
            remote = address
            return
        }
        let continuation = self.continuation
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder()))
                        try channel.pipeline.syncOperations.addHandler(Inbox<ByteBuffer>(continuation) { Array($0.readableBytesView) })
                    }
                }
                .connect(to: address).get()
        } catch {
            throw .setup("TCP connect to \(host):\(port): \(error)")
        }
    }

    /// The next packet or tick; nil once the socket is closed.
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

    /// Queues a packet; nothing leaves until ``flush()``.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let channel else { return }
        switch transport {
        case .udp:
            guard let remote else { return }
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.write(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: nil)
        case .tcp:
            guard let (high, low) = RFC4571Frame.header(length: bytes.count) else { return }
            var buffer = channel.allocator.buffer(capacity: RFC4571Frame.headerSize + bytes.count)
            buffer.writeInteger(high)
            buffer.writeInteger(low)
            buffer.writeBytes(bytes)
            channel.write(buffer, promise: nil)
        }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends what was queued (several UDP writes go out as one `sendmmsg`, TCP ones as one write).
    func flush() {
        channel?.flush()
    }

    func close() {
        if let channel { channel.close(promise: nil) } else { continuation.finish() }
    }

    private final class TickGate: Sendable {
        let pending = Atomic<Bool>(false)
    }

    /// Collects the packets of one read on the event loop (its only thread) and hands them over
    /// together when the read completes.
    private final class Inbox<Message>: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = Message
        let continuation: AsyncStream<[Event]>.Continuation
        let bytes: (Message) -> [UInt8]
        private var batch: [Event] = []
        init(_ continuation: AsyncStream<[Event]>.Continuation, bytes: @escaping (Message) -> [UInt8]) {
            self.continuation = continuation
            self.bytes = bytes
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            batch.append(.datagram(bytes(unwrapInboundIn(data))))
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
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// RFC 4571 frames out of the TCP stream; a length over 2048 is not the relay.
    private struct FrameDecoder: ByteToMessageDecoder {
        typealias InboundOut = ByteBuffer
        struct TooLong: Error {}

        mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
            switch buffer.withUnsafeReadableBytes({ RFC4571Frame.next(in: $0, maxLength: 2_048) }) {
            case .incomplete:
                return .needMoreData
            case .tooLong:
                throw TooLong()
            case .frame(let length):
                buffer.moveReaderIndex(forwardBy: RFC4571Frame.headerSize)
                guard let packet = buffer.readSlice(length: length) else { return .needMoreData }
                context.fireChannelRead(wrapInboundOut(packet))
                return .continue
            }
        }
    }
}

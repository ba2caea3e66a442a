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
/// (one allocation per packet in); what is sent between two flushes travels to the event loop
/// as one buffer in one task. The packets of one socket
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
    /// A netem-like link in user space, both ways (UDP only), and its dice for what is sent.
    private let impairment: LinkImpairment?
    private var random = SystemRandomNumberGenerator()
    /// Packets written since the last flush, back to back, and their lengths.
    private var outbox: ByteBuffer?
    private var outboxLengths: [Int] = []

    /// Binds `host:0` (UDP) and ticks every `tick`; `impairment` is applied to every datagram
    /// sent and received.
    init(host: String, transport: MediaTransport = .udp, tick: TimeAmount,
         impairment: LinkImpairment? = nil) async throws(MediaClientError) {
        let (stream, continuation) = AsyncStream<[Event]>.makeStream()
        self.transport = transport
        self.continuation = continuation
        let impairment = impairment?.isNone == false ? impairment : nil
        self.impairment = impairment
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
                                Inbox<AddressedEnvelope<ByteBuffer>>(continuation, impairment: impairment) { Array($0.data.readableBytesView) })
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

    /// Queues a packet; nothing leaves until ``flush()``. Packets are gathered back to back in
    /// one buffer and handed to the event loop together at the flush: no allocation and no
    /// thread hop per packet.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let channel else { return }
        switch transport {
        case .udp:
            guard let remote else { return }
            guard let impairment else { return enqueue(bytes, channel: channel) }
            switch impairment.fate(using: &random) {
            case .lost:
                return
            case .delivered(let after, let copies) where after == .zero:
                for _ in 0..<copies { enqueue(bytes, channel: channel) }
            case .delivered(let after, let copies):
                var buffer = channel.allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
                let envelope = AddressedEnvelope(remoteAddress: remote, data: buffer)
                eventLoop.scheduleTask(in: .nanoseconds(after.nanoseconds)) {
                    for _ in 0..<copies { channel.write(envelope, promise: nil) }
                    channel.flush()
                }
            }
        case .tcp:
            guard let (high, low) = RFC4571Frame.header(length: bytes.count) else { return }
            withUnsafeBytes(of: (high, low)) { enqueue($0, channel: channel, then: bytes) }
        }
    }

    /// Appends one packet (for TCP its RFC 4571 header, then the packet) to the outbox.
    private func enqueue(_ bytes: UnsafeRawBufferPointer, channel: any Channel, then more: UnsafeRawBufferPointer? = nil) {
        if outbox == nil { outbox = channel.allocator.buffer(capacity: 8 * 1_024) }
        outbox!.writeBytes(bytes)
        if let more { outbox!.writeBytes(more) }
        outboxLengths.append(bytes.count + (more?.count ?? 0))
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends what was queued, in one task on the event loop (several UDP writes go out as one
    /// `sendmmsg`, TCP ones as one write); nothing queued, nothing happens.
    func flush() {
        guard let channel, !outboxLengths.isEmpty, let buffer = outbox else { return }
        outbox = nil
        let lengths = outboxLengths
        outboxLengths.removeAll(keepingCapacity: true)
        let remote = self.remote, transport = self.transport
        channel.eventLoop.execute {
            var offset = buffer.readerIndex
            for length in lengths {
                guard let packet = buffer.getSlice(at: offset, length: length) else { break }
                offset += length
                switch transport {
                case .udp:
                    guard let remote else { return }
                    channel.write(AddressedEnvelope(remoteAddress: remote, data: packet), promise: nil)
                case .tcp:
                    channel.write(packet, promise: nil)
                }
            }
            channel.flush()
        }
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
        let impairment: LinkImpairment?
        private var random = SystemRandomNumberGenerator()
        private var batch: [Event] = []
        init(_ continuation: AsyncStream<[Event]>.Continuation, impairment: LinkImpairment? = nil,
             bytes: @escaping (Message) -> [UInt8]) {
            self.continuation = continuation
            self.impairment = impairment
            self.bytes = bytes
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let packet = bytes(unwrapInboundIn(data))
            guard let impairment else {
                batch.append(.datagram(packet))
                return
            }
            switch impairment.fate(using: &random) {
            case .lost:
                return
            case .delivered(let after, let copies) where after == .zero:
                for _ in 0..<copies { batch.append(.datagram(packet)) }
            case .delivered(let after, let copies):
                let continuation = self.continuation
                context.eventLoop.scheduleTask(in: .nanoseconds(after.nanoseconds)) {
                    continuation.yield([Event](repeating: .datagram(packet), count: copies))
                }
            }
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

extension Duration {
    /// The whole nanoseconds in this duration.
    var nanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}

import NIOCore
import NIOPosix
import ParleyRTP
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a ``MediaClient`` reaches the answerer: UDP datagrams, or ICE over TCP (RFC 6544) as the
/// active side of a connection to the answer's passive TCP candidate, each packet framed with
/// its length (RFC 4571).
public enum MediaTransport: String, Sendable, CaseIterable {
    case udp
    case tcp
}

/// The client's socket to one peer. Until a call's media runs, it is read as an async sequence
/// of packets and clock ticks, so one task can drive ICE and DTLS without locks (each packet
/// copied into its own array). Once ``runOnEventLoop(_:)`` hands it a ``Direct`` pair of
/// handlers, every packet and tick is handled where it happens, on the socket's event loop: a
/// packet is copied into one reused buffer and handed over in place — no allocation, no task
/// and no thread hop per packet or tick — and what the handlers write goes to the socket at
/// their flush, several UDP writes as one `sendmmsg`.
///
/// The ticks of every link on one event loop come from one timer (``TickHub``), not one timer
/// per link. UDP binds at once (its port goes into the offer); TCP connects in
/// ``connect(to:port:)``, and until then has no socket.
final class MediaLink {
    enum Event {
        case datagram([UInt8])
        case tick
    }

    /// What the link calls on its event loop while a call's media runs there: each packet in a
    /// buffer the handler may change (it is reused for the next), and each tick.
    struct Direct {
        var datagram: (inout [UInt8]) -> Void
        var tick: () -> Void
    }

    static let vectorReadCount = 16

    let transport: MediaTransport
    /// The UDP port bound; for TCP 9, the port RFC 6544 §4.5 has active candidates announce.
    let localPort: Int
    let eventLoop: any EventLoop
    private var channel: (any Channel)?
    private let router: Router
    /// The rest of the last batch, handed out one by one.
    private var pending: [Event] = []
    private var pendingIndex = 0
    private var remote: SocketAddress?
    /// A netem-like link in user space, both ways (UDP only), and its dice for what is sent.
    private let impairment: LinkImpairment?
    private var random = SystemRandomNumberGenerator()
    /// Packets written since the last flush, back to back, and their lengths.
    private var outbox: ByteBuffer?
    private var outboxLengths: [Int] = []
    /// Whether the handlers run on the event loop (set and read there, and by the task that
    /// hands them over).
    private(set) var isDirect = false
    /// The UDP socket (NIO's channel reads it and closes it), written directly on the event
    /// loop through ``batch``.
    private var descriptor: Int32?
    private let batch = DatagramBatch()

    /// Binds `host:0` (UDP) and ticks every `tick`; `impairment` is applied to every datagram
    /// sent and received.
    init(host: String, transport: MediaTransport = .udp, tick: TimeAmount,
         impairment: LinkImpairment? = nil) async throws(MediaClientError) {
        self.transport = transport
        let router = Router()
        self.router = router
        let impairment = impairment?.isNone == false ? impairment : nil
        self.impairment = impairment
        eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        switch transport {
        case .udp:
            let channel: any Channel
            let descriptor: Int32
            do {
                descriptor = try Self.openSocket(host: host)
            } catch {
                throw .setup("bind \(host): \(error)")
            }
            do {
                channel = try await DatagramBootstrap(group: eventLoop)
                    .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
                    // recvmmsg: up to 16 datagrams per system call. NIO splits the read buffer
                    // between them, so it holds 16 whole datagrams.
                    .channelOption(.datagramVectorReadMessageCount, value: Self.vectorReadCount)
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.vectorReadCount * 2_048))
                    .channelOption(.maxMessagesPerRead, value: 4)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                Inbox<AddressedEnvelope<ByteBuffer>>(router, impairment: impairment) { $0.data })
                        }
                    }
                    .withBoundSocket(descriptor).get()
            } catch {
                closeSocket(descriptor)
                throw .setup("bind \(host): \(error)")
            }
            self.channel = channel
            self.descriptor = descriptor
            localPort = channel.localAddress?.port ?? 0
        case .tcp:
            localPort = 9
        }
        TickHub.join(router, loop: eventLoop, every: tick)
    }

    deinit {
        channel?.close(promise: nil)
        let router = self.router
        eventLoop.execute { router.finish() }
    }

    /// Where packets go from now on: for TCP, connects to `host:port` (framed, RFC 4571).
    func connect(to host: String, port: Int) async throws(MediaClientError) {
        let address: SocketAddress
        do { address = try SocketAddress(ipAddress: host, port: port) } catch { throw .badAnswer("candidate \(host):\(port)") }
        guard transport == .tcp else {
            remote = address
            address.withSockAddr { batch.setDestination($0, length: $1) }
            return
        }
        let router = self.router
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder()))
                        try channel.pipeline.syncOperations.addHandler(Inbox<ByteBuffer>(router) { $0 })
                    }
                }
                .connect(to: address).get()
        } catch {
            throw .setup("TCP connect to \(host):\(port): \(error)")
        }
    }

    /// Hands packets and ticks to `direct` on the event loop from now on (nil: back to the
    /// event stream). Returns once the event loop has taken it; from then on only the event
    /// loop may use the link, until it is handed back.
    func runOnEventLoop(_ direct: Direct?) async {
        let router = self.router, box = UncheckedBox(direct)
        isDirect = direct != nil
        try? await eventLoop.submit { router.take(box.value) }.get()
    }

    /// The next packet or tick; nil once the socket is closed.
    func next() async -> Event? {
        if pendingIndex < pending.count {
            pendingIndex += 1
            return pending[pendingIndex - 1]
        }
        guard let batch = await router.nextBatch(), !batch.isEmpty else { return nil }
        pending = batch
        pendingIndex = 0
        if batch.contains(where: { if case .tick = $0 { true } else { false } }) { router.tickTaken() }
        return takePending()
    }

    /// The rest of a batch already taken from the stream, one at a time, without waiting.
    func takePending() -> Event? {
        guard pendingIndex < pending.count else { return nil }
        pendingIndex += 1
        return pending[pendingIndex - 1]
    }

    /// Queues a packet; nothing leaves until ``flush()``. Packets are gathered back to back in
    /// one buffer and written together at the flush: no allocation per packet.
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

    /// Appends one packet (for TCP its RFC 4571 header, then the packet) to the outbox; on the
    /// event loop, a UDP one to the ``batch`` that goes straight to the socket.
    private func enqueue(_ bytes: UnsafeRawBufferPointer, channel: any Channel, then more: UnsafeRawBufferPointer? = nil) {
        if transport == .udp, descriptor != nil, batch.hasDestination, eventLoop.inEventLoop {
            if batch.isFull { sendBatch() }
            if batch.append(bytes, then: more) { return }
        }
        if outbox == nil { outbox = channel.allocator.buffer(capacity: 8 * 1_024) }
        outbox!.writeBytes(bytes)
        if let more { outbox!.writeBytes(more) }
        outboxLengths.append(bytes.count + (more?.count ?? 0))
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends what was queued: on the event loop at once, from a task in one task on the event
    /// loop (several UDP writes go out as one `sendmmsg`, TCP ones as one write); nothing
    /// queued, nothing happens.
    func flush() {
        if batch.count > 0 { sendBatch() }
        guard let channel, !outboxLengths.isEmpty, let buffer = outbox else { return }
        outbox = nil
        if channel.eventLoop.inEventLoop {
            Self.write(buffer, lengths: outboxLengths, to: channel, remote: remote, transport: transport)
            outboxLengths.removeAll(keepingCapacity: true)
            return
        }
        let lengths = outboxLengths
        outboxLengths.removeAll(keepingCapacity: true)
        let remote = self.remote, transport = self.transport
        channel.eventLoop.execute {
            Self.write(buffer, lengths: lengths, to: channel, remote: remote, transport: transport)
        }
    }

    /// Each packet of `buffer` as a slice of it (no copy), then one flush.
    private static func write(_ buffer: ByteBuffer, lengths: [Int], to channel: any Channel, remote: SocketAddress?,
                              transport: MediaTransport) {
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

    /// Writes the batch to the socket (on the event loop), unless the channel has closed it.
    private func sendBatch() {
        guard let descriptor, !router.finished else { return batch.clear() }
        batch.send(on: descriptor)
    }

    /// A UDP socket bound to `host`, port 0, non-blocking, for NIO to read.
    private static func openSocket(host: String) throws -> Int32 {
        let address = try SocketAddress(ipAddress: host, port: 0)
        let family = address.protocol.rawValue
        #if os(Linux)
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(family, SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        var size: Int32 = 1 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { bind(descriptor, $0, socklen_t($1)) }
        guard bound == 0 else {
            let code = errno
            closeSocket(descriptor)
            throw IOError(errnoCode: code, reason: "bind")
        }
        return descriptor
    }

    func close() {
        if let channel {
            channel.close(promise: nil)
        } else {
            let router = self.router
            eventLoop.execute { router.finish() }
        }
    }
}

private func closeSocket(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}

/// Carries a value the event loop alone uses from then on.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Duration {
    /// The whole nanoseconds in this duration.
    var nanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyRTP
import ParleySTUN

/// A UDP proxy between one client and the relay that plays a NAT: the client talks to its
/// front socket, and the relay sees the proxy's outbound socket. ``rebind()`` swaps the outbound
/// socket for a new one (a new source port, as after NAT rebinding or a network switch) and
/// closes the old one, so what the relay still sends there is lost.
///
/// It records, per outbound socket, when STUN and media crossed it, so a test can tell whether
/// the relay sent media to a new address before that address checked in.
final class RebindingProxy: Sendable {
    /// What crossed one outbound socket.
    struct Leg: Sendable {
        var localPort: Int
        /// Binding requests the client sent out through it, and the first one's time.
        var checksOut = 0
        var firstCheckOut: ContinuousClock.Instant?
        /// Binding success responses and SRTP/SRTCP from the relay through it.
        var successesIn = 0
        var firstSuccessIn: ContinuousClock.Instant?
        var mediaIn = 0
        var firstMediaIn: ContinuousClock.Instant?
        var mediaOut = 0
        /// The last SRTP packet the client sent through it (for replay tests).
        var lastMediaOut: [UInt8]?
    }

    private struct State {
        var client: SocketAddress?
        var outbound: (any Channel)?
        var legs: [Leg] = []
    }

    let front: any Channel
    let relay: SocketAddress
    private let state: NIOLockedValueBox<State>

    /// The port the client should send to.
    var port: Int { front.localAddress?.port ?? 0 }

    static func start(relayPort: Int) async throws -> RebindingProxy {
        let state = NIOLockedValueBox(State())
        let relay = try SocketAddress(ipAddress: "127.0.0.1", port: relayPort)
        let front = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FrontHandler(state: state, relay: relay))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = RebindingProxy(front: front, relay: relay, state: state)
        try await proxy.rebind()
        return proxy
    }

    private init(front: any Channel, relay: SocketAddress, state: NIOLockedValueBox<State>) {
        self.front = front
        self.relay = relay
        self.state = state
    }

    /// Opens a new outbound socket and makes it the one used from now on; closes the old one.
    /// Returns the new socket's port (the address the relay will see).
    @discardableResult
    func rebind() async throws -> Int {
        let state = self.state
        let front = self.front
        let index = state.withLockedValue { $0.legs.count }
        let outbound = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BackHandler(state: state, front: front, index: index))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = outbound.localAddress?.port ?? 0
        let old = state.withLockedValue { state -> (any Channel)? in
            let old = state.outbound
            state.outbound = outbound
            state.legs.append(Leg(localPort: port))
            return old
        }
        try? await old?.close()
        return port
    }

    /// What crossed each outbound socket so far, in order of use.
    var legs: [Leg] { state.withLockedValue { $0.legs } }

    func close() async {
        let outbound = state.withLockedValue { $0.outbound }
        try? await outbound?.close()
        try? await front.close()
    }

    static func isMedia(_ bytes: ByteBuffer) -> Bool {
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return false }
        return PacketKind.classify(firstByte: first) == .rtpOrRTCP
    }

    static func stunType(_ bytes: ByteBuffer) -> STUNMessageType? {
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self),
              PacketKind.classify(firstByte: first) == .stun else { return nil }
        return bytes.withUnsafeReadableBytes { raw in
            if case .success(let message) = STUNMessage.parse(raw) { message.type } else { nil }
        }
    }

    /// Client → relay, through the current outbound socket.
    private final class FrontHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let state: NIOLockedValueBox<State>
        let relay: SocketAddress

        init(state: NIOLockedValueBox<State>, relay: SocketAddress) {
            self.state = state
            self.relay = relay
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let now = ContinuousClock.now
            let isCheck = RebindingProxy.stunType(envelope.data) == .bindingRequest
            let isMedia = RebindingProxy.isMedia(envelope.data)
            let outbound = state.withLockedValue { state -> (any Channel)? in
                state.client = envelope.remoteAddress
                guard !state.legs.isEmpty else { return nil }
                let index = state.legs.count - 1
                if isCheck {
                    state.legs[index].checksOut += 1
                    if state.legs[index].firstCheckOut == nil { state.legs[index].firstCheckOut = now }
                }
                if isMedia {
                    state.legs[index].mediaOut += 1
                    state.legs[index].lastMediaOut = Array(envelope.data.readableBytesView)
                }
                return state.outbound
            }
            outbound?.writeAndFlush(AddressedEnvelope(remoteAddress: relay, data: envelope.data), promise: nil)
        }
    }

    /// Relay → client, from one outbound socket.
    private final class BackHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let state: NIOLockedValueBox<State>
        let front: any Channel
        let index: Int

        init(state: NIOLockedValueBox<State>, front: any Channel, index: Int) {
            self.state = state
            self.front = front
            self.index = index
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let now = ContinuousClock.now
            let isSuccess = RebindingProxy.stunType(envelope.data) == .bindingSuccessResponse
            let isMedia = RebindingProxy.isMedia(envelope.data)
            let client = state.withLockedValue { state -> SocketAddress? in
                if isSuccess {
                    state.legs[index].successesIn += 1
                    if state.legs[index].firstSuccessIn == nil { state.legs[index].firstSuccessIn = now }
                }
                if isMedia {
                    state.legs[index].mediaIn += 1
                    if state.legs[index].firstMediaIn == nil { state.legs[index].firstMediaIn = now }
                }
                return state.client
            }
            guard let client else { return }
            front.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: envelope.data), promise: nil)
        }
    }
}

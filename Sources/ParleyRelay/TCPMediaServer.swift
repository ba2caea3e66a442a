import Logging
import NIOCore
import NIOPosix

/// ICE over TCP (RFC 6544): the relay's TCP port beside its UDP one, for clients whose network
/// drops UDP. The answer offers it as a passive host candidate; a client connects (active) and
/// sends RFC 4571 framed packets — STUN, DTLS, SRTP/SRTCP — which go into the same
/// ``RelayEngine`` path as datagrams, with the connection's remote address (``PeerAddress/isTCP``)
/// as the source. A connection becomes a candidate address of the leg whose ufrag its first
/// valid check names; until then it is pending, and pending connections are bounded in number
/// and in time, and closed on their first frame that is not a valid check.
///
/// ``connections`` and the flush list are touched only under the engine's lock.
final class TCPMediaServer: @unchecked Sendable {
    let engine: RelayEngine
    let configuration: RelayConfiguration
    private(set) var listener: (any Channel)?
    /// The bound port.
    private(set) var port = 0

    /// Open connections by remote address. Under the engine's lock.
    var connections: [PeerAddress: TCPMediaConnection] = [:]
    /// Connections with packets queued since the last flush. Under the engine's lock.
    private var dirty: [TCPMediaConnection] = []

    private init(engine: RelayEngine, configuration: RelayConfiguration) {
        self.engine = engine
        self.configuration = configuration
        dirty.reserveCapacity(64)
    }

    /// Listens as configured beside a UDP socket bound to `udpPort`; nil when TCP is off.
    static func start(configuration: RelayConfiguration, udpPort: Int, group: any EventLoopGroup,
                      engine: RelayEngine, logger: Logger) async throws -> TCPMediaServer? {
        let wanted = configuration.tcpPort ?? udpPort
        guard wanted != 0 else { return nil }
        let server = TCPMediaServer(engine: engine, configuration: configuration)
        let hosts = configuration.host == "::" ? ["::", "0.0.0.0"] : [configuration.host]
        // The UDP port's number by default; with an ephemeral UDP port (tests) any free one if
        // that number is taken for TCP.
        let ports = configuration.tcpPort == nil && configuration.port == 0 ? [wanted, 0] : [wanted]
        var lastError: (any Error)?
        for host in hosts {
            for port in ports {
                do {
                    let channel = try await server.bootstrap(group: group, dualStack: host == "::")
                        .bind(host: host, port: port).get()
                    server.listener = channel
                    server.port = channel.localAddress?.port ?? port
                    return server
                } catch {
                    lastError = error
                }
            }
            if host == "::" { logger.warning("IPv6 is not available for TCP; the media relay's TCP port listens on IPv4 only") }
        }
        throw lastError ?? MediaRelayError.notRunning
    }

    private func bootstrap(group: any EventLoopGroup, dualStack: Bool) -> ServerBootstrap {
        let maxLength = configuration.maxDatagramSize
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RFC4571FrameDecoder(maxLength: maxLength)))
                    try channel.pipeline.syncOperations.addHandler(TCPMediaHandler(server: self))
                }
            }
        if dualStack {
            // `::` takes IPv4 clients too, as the UDP socket does, whatever net.ipv6.bindv6only says.
            bootstrap = bootstrap.serverChannelOption(ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only), value: 0)
        }
        return bootstrap
    }

    // MARK: Connections (called by TCPMediaHandler)

    /// Admits a new connection as pending, or refuses it (false) past the pending limit.
    func admit(_ connection: TCPMediaConnection) -> Bool {
        engine.lock.withLock {
            guard engine.isReading else { return false }
            guard engine.counters.tcp.pending < configuration.tcpPendingLimit else {
                engine.counters.tcp.refusedOverLimit &+= 1
                return false
            }
            // The same remote address and port on a second connection (another local address):
            // one key, one connection.
            guard connections[connection.address] == nil else {
                engine.counters.tcp.closedUnauthenticated &+= 1
                return false
            }
            connections[connection.address] = connection
            engine.counters.tcp.accepted &+= 1
            engine.counters.tcp.pending += 1
            engine.counters.tcp.connections += 1
            return true
        }
    }

    /// One frame from `connection`; false when the connection is to be closed. What it makes the
    /// engine send waits for ``readComplete()``, so the frames of one read go out together.
    func receive(_ frame: TCPFrame, on connection: TCPMediaConnection) -> Bool {
        engine.lock.withLock {
            guard engine.isReading else { return false }
            switch frame {
            case .tooLong:
                engine.counters.packetsIn &+= 1
                engine.counters.tcp.packetsIn &+= 1
                engine.drop(.tcpFraming)
                engine.counters.tcp.closedBadFraming &+= 1
                return false
            case .packet(let packet):
                let wasChecked = connection.isChecked
                let keep = engine.receiveFramed(packet, from: connection.address, checked: wasChecked)
                if !wasChecked {
                    if keep {
                        connection.isChecked = true
                        engine.counters.tcp.pending -= 1
                    } else {
                        engine.counters.tcp.closedUnauthenticated &+= 1
                    }
                }
                return keep
            }
        }
    }

    /// A read's frames are all handled: send what they produced.
    func readComplete() {
        engine.lock.withLock { engine.flushIfNeeded() }
    }

    /// The first-check timer fired: closes the connection (true) if it is still pending.
    func expire(_ connection: TCPMediaConnection) -> Bool {
        engine.lock.withLock {
            guard !connection.isChecked, connections[connection.address] === connection else { return false }
            engine.counters.tcp.closedTimedOut &+= 1
            return true
        }
    }

    /// The connection is gone (either end closed it): its address is no longer a leg's.
    func closed(_ connection: TCPMediaConnection) {
        engine.lock.withLock {
            guard connections[connection.address] === connection else { return }
            connections.removeValue(forKey: connection.address)
            engine.counters.tcp.connections -= 1
            if !connection.isChecked { engine.counters.tcp.pending -= 1 }
            engine.forgetTCPAddress(connection.address)
        }
    }

    // MARK: Sending (under the engine's lock)

    /// Queues a packet for the connection at `address`; the drop reason when it cannot.
    func enqueue(_ bytes: UnsafeRawBufferPointer, to address: PeerAddress) -> DropReason? {
        guard let connection = connections[address] else { return .tcpNoConnection }
        guard connection.enqueue(bytes) else { return .tcpSendBufferFull }
        if !connection.isDirty {
            connection.isDirty = true
            dirty.append(connection)
        }
        return nil
    }

    /// Starts writing what every connection has queued.
    func flush() {
        guard !dirty.isEmpty else { return }
        for connection in dirty {
            connection.isDirty = false
            connection.flush()
        }
        dirty.removeAll(keepingCapacity: true)
    }

    /// Closes the connection at `address` once what is queued for it is written (a released leg).
    func disconnect(_ address: PeerAddress) {
        connections[address]?.close()
    }

    /// Stops listening and closes every connection.
    func shutdown() async {
        let open = engine.lock.withLock { Array(connections.values) }
        for connection in open { connection.close() }
        try? await listener?.close()
    }
}

import Logging
import NIOCore
import NIOPosix
import ParleyDTLS
import ParleySDP

/// The media relay: a WebRTC SFU for 1:1 calls on one UDP port, and the same number in TCP for
/// clients whose UDP is blocked (DESIGN.md, "Media relay").
///
/// Each client device negotiates one peer connection with the relay, which answers as an
/// ICE-lite (RFC 8445 §2.5), BUNDLE-only endpoint, DTLS server to active peers and client to
/// passive ones (RFC 5763 §5), with one host
/// candidate. The calls layer creates a leg per device (``createLeg(offer:owner:)``), then
/// ``pair(_:_:)``s two legs or ``echo(_:)``s one, and ``release(_:)``s them when the call ends.
/// ``events`` reports legs that connect, fail, or lose consent.
public final class MediaRelay: Sendable {
    public let configuration: RelayConfiguration
    /// The UDP port actually bound (useful with port 0).
    public let port: Int
    /// The TCP port for ICE over TCP (RFC 6544) actually bound; nil when TCP is off.
    public var tcpPort: Int? { tcp?.port }
    /// Leg events; one consumer.
    public let events: AsyncStream<LegEvent>
    /// The relay's DTLS certificate and settings, shared by all legs.
    public let dtlsContext: DTLSContext
    /// The same certificate in the client role, for legs whose peer is `passive`.
    let dtlsClientContext: DTLSContext

    let socket: RelaySocket
    let tcp: TCPMediaServer?
    let engine: RelayEngine
    let timer: RepeatedTask
    /// The thread that reads the media socket, and what it returns when it stops.
    let readerThread: NIOThreadPool
    let reader: EventLoopFuture<Void>
    let logger: Logger
    let eventsContinuation: AsyncStream<LegEvent>.Continuation

    private init(configuration: RelayConfiguration, port: Int, events: AsyncStream<LegEvent>,
                 eventsContinuation: AsyncStream<LegEvent>.Continuation, dtlsContext: DTLSContext,
                 dtlsClientContext: DTLSContext,
                 socket: RelaySocket, tcp: TCPMediaServer?, engine: RelayEngine, timer: RepeatedTask, readerThread: NIOThreadPool,
                 reader: EventLoopFuture<Void>, logger: Logger) {
        self.configuration = configuration
        self.port = port
        self.events = events
        self.eventsContinuation = eventsContinuation
        self.dtlsContext = dtlsContext
        self.dtlsClientContext = dtlsClientContext
        self.socket = socket
        self.tcp = tcp
        self.engine = engine
        self.timer = timer
        self.readerThread = readerThread
        self.reader = reader
        self.logger = logger
    }

    /// Binds the media socket and starts its reader thread and the timers.
    public static func start(configuration: RelayConfiguration = RelayConfiguration(),
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                             dtlsContext: DTLSContext? = nil,
                             logger: Logger = Logger(label: "parley.relay"),
                             metrics: RelayMetrics = .none) async throws -> MediaRelay {
        let context = try dtlsContext ?? DTLSContext()
        let clientContext = try context.sibling(role: .client)
        let (events, continuation) = AsyncStream<LegEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let eventLoop = group.next()
        let engine = RelayEngine(eventLoop: eventLoop, configuration: configuration, logger: logger, events: continuation,
                                  metrics: metrics)
        let socket = try RelaySocket.open(configuration, logger: logger)
        engine.output = socket
        let port = socket.port
        let tcp: TCPMediaServer?
        do {
            tcp = try await TCPMediaServer.start(configuration: configuration, udpPort: port, group: group,
                                                 engine: engine, logger: logger)
        } catch {
            socket.close()
            throw error
        }
        engine.tcp = tcp
        var logger = logger
        logger[metadataKey: "relayPort"] = "\(port)"
        engine.logger = logger
        let interval = TimeAmount.nanoseconds(Int64(configuration.timerInterval.components.seconds) * 1_000_000_000
            + configuration.timerInterval.components.attoseconds / 1_000_000_000)
        let timer = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            engine.lock.withLock { engine.tick(now: .now()) }
        }
        let readerThread = NIOThreadPool(numberOfThreads: 1)
        readerThread.start()
        let loop = RelayIOLoop(socket: socket, engine: engine)
        let reader = readerThread.runIfActive(eventLoop: eventLoop) { loop.run() }
        logger.info("media relay started", metadata: [
            "host": "\(configuration.host)", "announced": "\(configuration.effectiveAnnouncedAddresses)",
            "tcpPort": "\(tcp.map { String($0.port) } ?? "off")",
            "fingerprint": "\(context.fingerprint)"])
        return MediaRelay(configuration: configuration, port: port, events: events, eventsContinuation: continuation,
                          dtlsContext: context, dtlsClientContext: clientContext, socket: socket, tcp: tcp, engine: engine,
                          timer: timer,
                          readerThread: readerThread, reader: reader, logger: logger)
    }

    /// Makes a leg for a client's offer and returns the relay's answer (ICE-lite, own ufrag/pwd,
    /// the relay's fingerprint, `a=setup:passive` — `active` to a passive offer — one host
    /// candidate, Opus/VP8 only).
    public func createLeg(offer: String, owner: String) async throws(MediaRelayError) -> (LegID, answerSDP: String) {
        let id = LegID.generate()
        let setup = try LegFactory(configuration: configuration, port: port, tcpPort: tcpPort, dtlsContext: dtlsContext,
                                   dtlsClientContext: dtlsClientContext)
            .makeLeg(id: id, offer: offer, owner: owner)
        try await onLoop { engine throws(MediaRelayError) in try engine.add(setup.leg) }
        logger.info("leg created", metadata: ["leg": "\(id)", "owner": "\(owner)",
                                              "audio": "\(setup.leg.media.audio != nil)", "video": "\(setup.leg.media.video != nil)"])
        return (id, setup.answer)
    }

    /// Answers an ICE restart offer for a live leg (RFC 8445 §9, RFC 8839 §4.4.1.1.1) and
    /// returns the answer SDP: fresh relay ufrag/pwd, the same fingerprint, DTLS role and SSRCs.
    /// The leg keeps its DTLS association, SRTP contexts and partner — the other side sees no
    /// change. Until the client's first check with the new credentials the old ones stay valid
    /// (it keeps using the old pair meanwhile), then for ``ICELiteAgent/restartOverlap`` more.
    ///
    /// Throws `not_an_ice_restart` when the offer keeps the ufrag in use, `fingerprint_changed`,
    /// `dtls_role_changed` or `media_changed` when it changes what the leg must keep,
    /// `leg_not_live` for a leg that failed, closed or died, and the offer errors of
    /// ``createLeg(offer:owner:)``.
    public func restartICE(_ leg: LegID, offer: String) async throws(MediaRelayError) -> String {
        let basis = try await onLoop { engine throws(MediaRelayError) in try engine.restartBasis(leg) }
        let restart = try LegFactory(configuration: configuration, port: port, tcpPort: tcpPort, dtlsContext: dtlsContext)
            .restart(basis, offer: offer)
        let version = basis.parameters.sessionVersion
        try await onLoop { engine throws(MediaRelayError) in try engine.applyRestart(leg, restart, basisVersion: version) }
        return restart.answer
    }

    /// Forwards a's media to b and b's to a.
    public func pair(_ a: LegID, _ b: LegID) async throws(MediaRelayError) {
        try await onLoop { engine throws(MediaRelayError) in try engine.pair(a, b) }
    }

    /// Sends the leg's own audio and video back to it (the echo test call).
    public func echo(_ leg: LegID) async throws(MediaRelayError) {
        try await onLoop { engine throws(MediaRelayError) in try engine.echo(leg) }
    }

    /// Drops the leg (close_notify to the client) and unpairs its partner. Unknown ids are ignored.
    public func release(_ leg: LegID) async {
        try? await onLoop { engine in engine.release(leg) }
    }

    /// The leg's counters now; nil for an unknown leg.
    public func stats(for leg: LegID) async -> LegStats? {
        (try? await onLoop { engine in engine.stats(leg) }) ?? nil
    }

    /// Whether the media socket is open and read (false once ``shutdown()`` began).
    public func isReceiving() async -> Bool {
        (try? await onLoop { engine in engine.isReading }) ?? false
    }

    /// The relay's global counters now.
    public func counters() async -> RelayCounters {
        (try? await onLoop { engine in engine.counters }) ?? RelayCounters()
    }

    /// Releases every leg, stops the timers and the reader thread, and closes the socket.
    public func shutdown() async {
        let wasReading = (try? await onLoop { engine in
            engine.releaseAll()
            let wasReading = engine.isReading
            // Nothing is written after this: the descriptor is closed below.
            engine.isReading = false
            engine.output = nil
            return wasReading
        }) ?? false
        timer.cancel()
        // Only the first shutdown closes the descriptor: a second close could hit a reused number.
        guard wasReading else { return }
        await tcp?.shutdown()
        socket.wake()
        try? await reader.get()
        try? await readerThread.shutdownGracefully()
        socket.close()
        eventsContinuation.finish()
        logger.info("media relay stopped")
    }

    /// Runs `body` on the engine's event loop, under the engine's lock.
    private func onLoop<T: Sendable>(_ body: @escaping @Sendable (RelayEngine) throws(MediaRelayError) -> T) async throws(MediaRelayError) -> T {
        let engine = self.engine
        do {
            return try await engine.eventLoop.submit { try engine.lock.withLock { try body(engine) } }.get()
        } catch let error as MediaRelayError {
            throw error
        } catch {
            throw .notRunning
        }
    }
}

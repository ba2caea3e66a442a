import Logging
import NIOConcurrencyHelpers
import NIOCore
import ParleyDTLS
import ParleySRTP

/// Everything the relay knows: the leg table (by id, by ICE ufrag, by remote address), the
/// counters, and the buffers the packet path reuses.
///
/// Guarded by ``lock``: datagram batches arrive from ``RelayIOLoop``'s thread, control calls from
/// ``MediaRelay`` on ``eventLoop``, timers from a repeated task there; each takes the lock, so
/// none of them ever runs concurrently, which is what makes the `@unchecked Sendable` sound.
/// (Engine-only tests call it from one task, without the lock.)
final class RelayEngine: @unchecked Sendable {
    let eventLoop: any EventLoop
    let configuration: RelayConfiguration
    var logger: Logger
    let events: AsyncStream<LegEvent>.Continuation
    let lock = NIOLock()

    var legs: [LegID: RelayLeg] = [:]
    /// By the relay's ufrag, the first half of a check's USERNAME (RFC 8445 §7.2.2).
    var legsByUfrag: [String: RelayLeg] = [:]
    /// By every address that passed a connectivity check (RFC 8445 §7.3.1.4).
    var legsByAddress: [PeerAddress: RelayLeg] = [:]
    var counters = RelayCounters()
    let metrics: RelayMetrics
    /// Set by ``releaseAll()`` at shutdown: no new legs after that.
    var isShutDown = false
    /// Cleared at shutdown, under the lock: the I/O thread stops after its current batch.
    var isReading = true

    /// Where outgoing datagrams are queued (the media socket); nil in engine-only tests.
    var output: (any DatagramSink)?
    /// The TCP port's connections (RFC 6544), where packets for TCP addresses go; nil when off.
    var tcp: TCPMediaServer?
    var needsFlush = false
    /// Room for one packet built by the engine itself (a PLI), protected in place.
    let scratch: UnsafeMutableRawBufferPointer
    /// Where ``receive(_:)`` copies a datagram handed over as a `ByteBuffer` (tests), with the
    /// same room after it as the socket's slots.
    let inbound: UnsafeMutableRawBufferPointer

    /// Bytes after a datagram in its buffer: what SRTP/SRTCP protection may add (tag, index).
    static let protectionRoom = 128

    init(eventLoop: any EventLoop, configuration: RelayConfiguration, logger: Logger,
         events: AsyncStream<LegEvent>.Continuation, metrics: RelayMetrics = .none) {
        self.eventLoop = eventLoop
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
        self.events = events
        let size = configuration.maxDatagramSize + Self.protectionRoom
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        scratch.initializeMemory(as: UInt8.self, repeating: 0)
        inbound = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        inbound.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        scratch.deallocate()
        inbound.deallocate()
    }

    // MARK: Control (from MediaRelay)

    func add(_ leg: RelayLeg) throws(MediaRelayError) {
        guard !isShutDown else { throw .notRunning }
        guard legs.count < configuration.maxLegs else { throw .full(configuration.maxLegs) }
        legs[leg.id] = leg
        syncUfrags(leg)
        counters.legs = legs.count
    }

    func leg(_ id: LegID) throws(MediaRelayError) -> RelayLeg {
        guard let leg = legs[id] else { throw .unknownLeg(id) }
        return leg
    }

    /// Forwards a→b and b→a, undoing any earlier pairing of either.
    func pair(_ a: LegID, _ b: LegID) throws(MediaRelayError) {
        let first = try leg(a)
        let second = try leg(b)
        unpair(first)
        unpair(second)
        first.target = second
        second.target = first
        rebuildPlans(first)
        let now = NIODeadline.now()
        requestKeyFrame(for: second, now: now)
        requestKeyFrame(for: first, now: now)
        flushIfNeeded()
        logger.info("legs paired", metadata: ["leg": "\(a)", "partner": "\(b)"])
    }

    /// Sends a leg's media back to itself.
    func echo(_ id: LegID) throws(MediaRelayError) {
        let leg = try leg(id)
        unpair(leg)
        leg.target = leg
        rebuildPlans(leg)
        logger.info("leg echoes", metadata: ["leg": "\(id)"])
    }

    /// Removes the leg, tells the client with close_notify, and unpairs its partner.
    func release(_ id: LegID) {
        guard let leg = legs.removeValue(forKey: id) else { return }
        unpair(leg)
        for ufrag in leg.registeredUfrags where legsByUfrag[ufrag] === leg { legsByUfrag.removeValue(forKey: ufrag) }
        if let address = leg.dtlsAddress {
            for datagram in leg.dtls.close().datagrams { send(datagram, to: address) }
            flushIfNeeded()
        }
        disconnectTCP(of: leg)
        for address in leg.heldAddresses where legsByAddress[address] === leg { legsByAddress.removeValue(forKey: address) }
        leg.heldAddresses.removeAll()
        counters.legs = legs.count
        logger.info("leg released", metadata: ["leg": "\(id)", "owner": "\(leg.owner)",
                                               "packetsIn": "\(leg.packetsIn)", "packetsOut": "\(leg.packetsOut)"])
    }

    func stats(_ id: LegID) -> LegStats? {
        legs[id]?.stats(now: .now())
    }

    func releaseAll() {
        isShutDown = true
        for id in Array(legs.keys) { release(id) }
    }

    /// Keeps ``legsByUfrag`` in step with the ufrags the leg's agent still answers to (one, or
    /// more around an ICE restart).
    func syncUfrags(_ leg: RelayLeg) {
        let held = leg.ice.localUfrags
        for ufrag in leg.registeredUfrags where !held.contains(ufrag) && legsByUfrag[ufrag] === leg {
            legsByUfrag.removeValue(forKey: ufrag)
        }
        for ufrag in held { legsByUfrag[ufrag] = leg }
        leg.registeredUfrags = held
    }

    private func unpair(_ leg: RelayLeg) {
        if let partner = leg.target, partner !== leg {
            partner.target = nil
            partner.plan = nil
        }
        leg.target = nil
        leg.plan = nil
    }

    /// Recomputes the rewrite tables both ways after pairing or after an SSRC was learned.
    func rebuildPlans(_ leg: RelayLeg) {
        guard let target = leg.target else { return }
        leg.plan = ForwardingPlan(from: leg.media, to: target.media)
        if target !== leg { target.plan = ForwardingPlan(from: target.media, to: leg.media) }
    }

    // MARK: Timers

    /// DTLS retransmissions (RFC 6347 §4.2.4), consent freshness (RFC 7675 §5.1) and key frame
    /// requests still unanswered.
    func tick(now: NIODeadline) {
        for leg in legs.values {
            switch leg.state {
            case .failed, .closed, .dead:
                continue
            case .handshaking:
                if let address = leg.dtlsAddress, let timeout = leg.dtls.nextTimeout, timeout <= .zero {
                    let outcome = leg.dtls.handleTimeout()
                    for datagram in outcome.datagrams { send(datagram, to: address) }
                    if let state = outcome.newState { dtlsStateChanged(leg, to: state) }
                }
            case .waitingForICE, .connected:
                break
            }
            guard leg.state == .waitingForICE || leg.state == .handshaking || leg.state == .connected else { continue }
            let consent = leg.ice.consent(now: now)
            if consent != .fresh {
                leg.state = .dead
                logger.notice("leg dead: no consent", metadata: [
                    "leg": "\(leg.id)", "owner": "\(leg.owner)", "neverGranted": "\(consent == .neverGranted)"])
                events.yield(LegEvent(leg: leg.id, owner: leg.owner, kind: .dead))
            } else if let wait = leg.keyFrameWait, leg.canReceiveMedia, wait.isDue(at: now) {
                requestKeyFrame(for: leg, now: now)
            }
        }
        flushIfNeeded()
    }

    // MARK: Output

    /// Queues one datagram; the caller flushes (one flush per read batch: sendmmsg).
    func send(_ bytes: UnsafeRawBufferPointer, to address: PeerAddress) {
        guard let output else { return }
        if address.isTCP { return sendTCP(bytes, to: address) }
        counters.packetsOut &+= 1
        counters.bytesOut &+= UInt64(bytes.count)
        output.enqueue(bytes, to: address)
        needsFlush = true
    }

    func send(_ bytes: [UInt8], to address: PeerAddress) {
        bytes.withUnsafeBytes { send($0, to: address) }
    }

    func flushIfNeeded() {
        guard needsFlush, let output else { return }
        needsFlush = false
        output.flush()
        tcp?.flush()
    }
}

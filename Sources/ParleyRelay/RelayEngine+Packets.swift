import NIOCore
import ParleyDTLS
import ParleyRTP
import ParleySRTP
import ParleySTUN

extension RelayEngine {
    /// One datagram handed over as NIO values (engine-only tests): copied into ``inbound`` and
    /// handled as if it had arrived in a socket slot.
    func receive(_ envelope: AddressedEnvelope<ByteBuffer>) {
        envelope.data.withUnsafeReadableBytes { bytes in
            let fits = bytes.count <= configuration.maxDatagramSize
            if fits, bytes.count > 0 { inbound.copyMemory(from: bytes) }
            receive(inbound, length: bytes.count, truncated: !fits, from: PeerAddress(envelope.remoteAddress))
        }
    }

    /// One datagram from the media socket, in `slot[0..<length]` (the slot has
    /// ``protectionRoom`` bytes to spare, so SRTP works in place), demultiplexed by its first
    /// byte (RFC 7983 §7) and then by ICE username or source address. Never throws; every drop
    /// is counted.
    func receive(_ slot: UnsafeMutableRawBufferPointer, length: Int, truncated: Bool, from source: PeerAddress?) {
        counters.packetsIn &+= 1
        counters.bytesIn &+= UInt64(length)
        guard length > 0, let peer = source else { return drop(.unknownKind) }
        guard !truncated, length <= configuration.maxDatagramSize,
              slot.count - length >= Self.protectionRoom else { return drop(.oversized) }
        let bytes = UnsafeRawBufferPointer(rebasing: slot[0..<length])
        switch PacketKind.classify(firstByte: bytes[0]) {
        case .stun:
            handleSTUN(bytes, from: peer)
        case .dtls:
            handleDTLS(bytes, from: peer)
        case .rtpOrRTCP:
            let second = length > 1 ? bytes[1] : 0
            handleSRTP(slot, length: length, from: peer, isRTCP: PacketKind.isRTCP(secondByte: second))
        case .zrtp, .turnChannel, .unknown:
            drop(.unknownKind)
        }
    }

    @inline(__always)
    func drop(_ reason: DropReason) {
        counters.count(reason)
    }

    /// A connectivity check (RFC 8445 §7.3): find the leg by the relay's half of USERNAME, let its
    /// ICE-lite agent judge it, answer, and remember the source address.
    private func handleSTUN(_ bytes: UnsafeRawBufferPointer, from peer: PeerAddress) {
        guard case .success(let message) = STUNMessage.parse(bytes) else { return drop(.notSTUN) }
        guard message.type == .bindingRequest else { return drop(.stunIgnored) }
        guard let username = message.username, let colon = username.firstIndex(of: ":"),
              let leg = legsByUfrag[String(username[..<colon])] else { return drop(.unknownUsername) }
        // Before the agent sees it: a check refused here refreshes nothing of the leg's either.
        guard mayHold(peer, for: leg) else { return drop(.addressTaken) }
        let now = NIODeadline.now()
        switch leg.ice.handleBindingRequest(message, bytes: bytes, from: peer, now: now) {
        case .success(let response, _, let useCandidate, let credentials):
            leg.lastActivity = now
            if legsByAddress[peer] !== leg { hold(peer, for: leg) }
            if credentials == .renewed {
                // The client moved to the restart's credentials: addresses checked with the old
                // ones must check in again before they can take media (RFC 8445 §9).
                leg.path.credentialsRenewed()
                syncUfrags(leg)
                logger.info("ICE restart in use", metadata: ["leg": "\(leg.id)", "address": "\(peer)"])
            }
            // Old credentials (within the overlap) keep the target alive but choose no address.
            if credentials != .retiring || peer == leg.sendAddress {
                sendAddressChanged(leg, leg.path.checked(from: peer, nominating: useCandidate, now: now))
            }
            if leg.state == .waitingForICE { leg.state = .handshaking }
            if useCandidate { startDTLSClient(leg, at: peer) }
            send(response, to: peer)
        case .errorResponse(let response):
            send(response, to: peer)
        case .drop(let reason):
            drop(reason)
        }
    }

    /// DTLS (RFC 5764 §5.1.2) from an address that passed ICE goes to that leg's server.
    private func handleDTLS(_ bytes: UnsafeRawBufferPointer, from peer: PeerAddress) {
        guard let leg = legsByAddress[peer], leg.ice.isValid(peer) else { return drop(.dtlsForUnknownLeg) }
        switch leg.state {
        case .handshaking, .connected: break
        case .waitingForICE, .failed, .closed, .dead: return drop(.dtlsForUnknownLeg)
        }
        leg.lastActivity = .now()
        leg.dtlsAddress = peer
        if leg.dtlsStarted == nil { leg.dtlsStarted = .now() }
        let outcome = leg.dtls.receive(bytes)
        for datagram in outcome.datagrams { send(datagram, to: peer) }
        if let state = outcome.newState { dtlsStateChanged(leg, to: state) }
    }

    /// Acts on a new DTLS state: keys → SRTP sessions (RFC 5764 §4.2); failure or close → the
    /// leg carries no more media.
    func dtlsStateChanged(_ leg: RelayLeg, to state: DTLSState) {
        switch state {
        case .handshaking:
            return
        case .connected(let keys):
            do {
                leg.srtp = try SRTPPair(keys, role: leg.dtls.role)
            } catch {
                fail(leg, reason: "srtp_setup_failed: \(error)")
                return
            }
            // The handshake that derived the keys proves the address it completed from.
            if let address = leg.dtlsAddress {
                sendAddressChanged(leg, leg.path.authenticated(from: address, now: .now()))
            }
            leg.state = .connected
            metrics.handshake("connected", took: leg.dtlsStarted.map { Duration.nanoseconds((NIODeadline.now() - $0).nanoseconds) })
            logger.info("leg connected", metadata: [
                "leg": "\(leg.id)", "owner": "\(leg.owner)", "srtpProfile": "\(keys.profile.openSSLName)"])
            events.yield(LegEvent(leg: leg.id, owner: leg.owner, kind: .connected(srtpProfile: keys.profile.openSSLName)))
            requestKeyFramesForNewReceiver(leg)
        case .failed(let failure):
            fail(leg, reason: "dtls_failed: \(failure)")
        case .closed:
            guard leg.state != .failed else { return }
            leg.state = .closed
            leg.srtp = nil
            logger.info("leg closed by client", metadata: ["leg": "\(leg.id)", "owner": "\(leg.owner)"])
            events.yield(LegEvent(leg: leg.id, owner: leg.owner, kind: .closed))
        }
    }

    /// Carries out a change of the leg's send target (``MediaPath``): media goes there from now
    /// on, and the sender it receives from is asked for a key frame.
    func sendAddressChanged(_ leg: RelayLeg, _ address: PeerAddress?) {
        guard let address else { return }
        let previous = leg.sendAddress
        leg.sendAddress = address
        if previous != nil { counters.addressSwitches &+= 1 }
        logger.info("media address", metadata: [
            "leg": "\(leg.id)", "address": "\(address)", "previous": "\(previous.map { "\($0)" } ?? "none")"])
        requestKeyFramesForNewReceiver(leg)
    }

    private func fail(_ leg: RelayLeg, reason: String) {
        guard leg.state != .failed else { return }
        if leg.state == .handshaking { metrics.handshake("failed", took: nil) }
        leg.state = .failed
        leg.srtp = nil
        logger.warning("leg failed", metadata: ["leg": "\(leg.id)", "owner": "\(leg.owner)", "reason": "\(reason)"])
        events.yield(LegEvent(leg: leg.id, owner: leg.owner, kind: .failed(reason: reason)))
    }
}

import ParleyDTLS

extension RelayEngine {
    /// For a leg whose peer said `a=setup:passive`, the relay is the DTLS client (RFC 5763 §5):
    /// once ICE has nominated `address` it sends the ClientHello there. Retransmissions then run
    /// from ``tick(now:)`` like the server's; a later nomination before the handshake ends
    /// changes nothing, the peer's own flights move ``RelayLeg/dtlsAddress``.
    func startDTLSClient(_ leg: RelayLeg, at address: PeerAddress) {
        guard leg.dtls.role == .client, leg.state == .handshaking, leg.dtlsAddress == nil else { return }
        leg.dtlsAddress = address
        leg.dtlsStarted = .now()
        let outcome = leg.dtls.start()
        for datagram in outcome.datagrams { send(datagram, to: address) }
        logger.debug("DTLS client started", metadata: ["leg": "\(leg.id)", "address": "\(address)"])
        if let state = outcome.newState { dtlsStateChanged(leg, to: state) }
    }
}

import ParleyDTLS
import ParleyRTP
import ParleySRTP
import ParleySTUN

extension MediaClient {
    /// ICE, then DTLS, against `answer`; returns the negotiated SRTP profile.
    ///
    /// ICE (RFC 8445 §7.2.2): one nominating check to the answer's host candidate of the
    /// configured transport (over TCP: on a connection to its passive candidate, RFC 6544 §7.1),
    /// repeated every 50 ms until a success response with valid MESSAGE-INTEGRITY arrives — the answerer is
    /// ICE-lite, so there is a single pair. DTLS (RFC 6347) as client, since the offer said
    /// `actpass` and a relay answers `passive`; the peer's certificate must match the answer's
    /// `a=fingerprint`.
    @discardableResult
    public func connect(answer: String, timeout: Duration = .seconds(10)) async throws(MediaClientError) -> SRTPProfile {
        let remote = try RemoteAnswer(sdp: answer, offer: local, ipv6: configuration.bindHost.contains(":"),
                                      transport: configuration.transport)
        self.remote = remote
        try await link.connect(to: remote.host, port: remote.port)
        let deadline = ContinuousClock.now + timeout
        try await checkConnectivity(remote, deadline: deadline)
        return try await handshake(remote, deadline: deadline)
    }

    private func checkConnectivity(_ remote: RemoteAnswer, deadline: ContinuousClock.Instant) async throws(MediaClientError) {
        let key = STUNIntegrityKey(password: remote.icePassword)
        let username = "\(remote.iceUfrag):\(local.ufrag)"
        iceCheck = (key, username)
        let transaction = STUNTransactionID.random()
        let check = STUNMessageBuilder.bindingRequest(
            transactionID: transaction, username: username, priority: 2_130_706_431,
            role: .controlling(tieBreaker: .random(in: 0...UInt64.max)), useCandidate: true, key: key)
        var lastSent: ContinuousClock.Instant?
        while true {
            let now = ContinuousClock.now
            guard now < deadline else { throw .timedOut("ICE") }
            if lastSent.map({ now - $0 >= .milliseconds(50) }) ?? true {
                writeRaw(check)
                lastSent = now
            }
            switch await link.next() {
            case .datagram(let bytes):
                if case .success(let response) = STUNMessage.parse(bytes), response.transactionID == transaction,
                   response.type == .bindingSuccessResponse, response.verifyMessageIntegrity(bytes, key: key) {
                    return
                }
            case .tick: continue
            case nil: throw .closed
            }
        }
    }

    private func handshake(_ remote: RemoteAnswer, deadline: ContinuousClock.Instant) async throws(MediaClientError) -> SRTPProfile {
        var client: DTLSClient
        do {
            client = try DTLSClient(context: context, remoteFingerprint: remote.fingerprint,
                                    initialRetransmissionTimeout: .milliseconds(200))
        } catch {
            throw .dtls("\(error)")
        }
        writeAll(client.start())
        while true {
            guard ContinuousClock.now < deadline else { throw .timedOut("DTLS") }
            var outcome = DTLSOutcome()
            switch await link.next() {
            case .datagram(let bytes) where PacketKind.classify(firstByte: bytes.first ?? 0) == .dtls:
                outcome = bytes.withUnsafeBytes { client.receive($0) }
            case .datagram, .tick:
                if let timeout = client.nextTimeout, timeout <= .zero { outcome = client.handleTimeout() }
            case nil: throw .closed
            }
            writeAll(outcome)
            switch outcome.newState {
            case .connected(let keys)?:
                do {
                    transport = try SRTPTransport(profile: keys.profile, inboundKey: keys.clientInbound,
                                                  outboundKey: keys.clientOutbound, resends: configuration.resendsOnNACK)
                } catch {
                    throw .setup("SRTP: \(error)")
                }
                dtls = consume client
                return keys.profile
            case .failed(let failure)?: throw .dtls("\(failure)")
            case .closed?: throw .dtls("closed")
            case .handshaking?, nil: continue
            }
        }
    }

    /// DTLS after the handshake (the server's retransmitted last flight wants our answer again);
    /// STUN responses to consent checks need nothing.
    func handleControl(_ bytes: [UInt8]) {
        guard PacketKind.classify(firstByte: bytes.first ?? 0) == .dtls, dtls != nil else { return }
        let outcome = bytes.withUnsafeBytes { dtls!.receive($0) }
        writeAll(outcome)
    }

    /// A consent freshness check (RFC 7675 §5.1): any valid check keeps the answerer's consent.
    func sendConsentCheck() {
        guard let iceCheck else { return }
        writeRaw(STUNMessageBuilder.bindingRequest(
            transactionID: .random(), username: iceCheck.username, priority: 2_130_706_431,
            role: .controlling(tieBreaker: .random(in: 0...UInt64.max)), useCandidate: false, key: iceCheck.key))
    }

    func writeAll(_ outcome: DTLSOutcome) {
        guard !outcome.datagrams.isEmpty else { return }
        for datagram in outcome.datagrams { link.write(datagram) }
        link.flush()
    }
}

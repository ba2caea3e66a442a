import COpenSSL
import CParleyShim
import ParleySRTP

/// The socketless DTLS 1.2 endpoint behind ``DTLSServer`` and ``DTLSClient`` (RFC 6347,
/// RFC 5764): one `SSL` with its two BIOs, the ``DTLSLink`` its callbacks reach, and the state.
/// The two public types differ only in the handshake side (`role`) and in who sends first.
///
/// - Incoming datagrams go through a memory BIO one at a time, so the record layer reads exactly
///   one datagram; OpenSSL itself reassembles fragmented handshake messages and buffers
///   out-of-order ones (RFC 6347 §4.2.3).
/// - Outgoing records go through ``DatagramBIO``: one write, one datagram of at most the MTU.
/// - The peer's certificate is accepted only if it matches `remoteFingerprint` (RFC 5763 §5).
/// - Noncopyable: one owner drives it from one thread at a time.
struct DTLSEndpoint: ~Copyable {
    private let ssl: OpaquePointer
    /// Memory BIO for incoming datagrams; owned by `ssl`.
    private let incoming: OpaquePointer
    private let link: DTLSLink
    private let context: DTLSContext
    private(set) var state: DTLSState = .handshaking

    /// Key export label for DTLS-SRTP (RFC 5764 §4.2).
    static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// An endpoint playing `role` in the handshake (`.server`: accept, `.client`: connect) on
    /// `context`, accepting only a peer certificate matching `remoteFingerprint`.
    init(context: DTLSContext, role: DTLSRole, remoteFingerprint: DTLSFingerprint, mtu: Int,
         initialRetransmissionTimeout: Duration) throws(DTLSSetupError) {
        OpenSSLErrors.clear()
        let micros = initialRetransmissionTimeout.components.seconds * 1_000_000
            + initialRetransmissionTimeout.components.attoseconds / 1_000_000_000_000
        let link = DTLSLink(expectedFingerprint: remoteFingerprint,
                            initialTimeoutMicros: UInt32(clamping: max(micros, 1000)))
        guard let ssl = SSL_new(context.context) else { throw DTLSSetupError("SSL_new") }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = DatagramBIO.make(link: link) else {
            SSL_free(ssl)
            throw DTLSSetupError("BIO_new")
        }
        // An empty memory BIO reports "retry later" rather than end of file.
        _ = parley_BIO_set_mem_eof_return(incoming, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        _ = SSL_set_ex_data(ssl, DTLSLink.exDataIndex, Unmanaged.passUnretained(link).toOpaque())
        DTLS_set_timer_cb(ssl, DTLSLink.timerCallback)
        _ = SSL_set_options(ssl, parley_SSL_OP_NO_QUERY_MTU)
        guard parley_SSL_set_mtu(ssl, mtu) == mtu else {  // returns the MTU it set, 0 below the minimum
            SSL_free(ssl)
            throw DTLSSetupError("SSL_set_mtu(\(mtu))")
        }
        switch role {
        case .server: SSL_set_accept_state(ssl)
        case .client: SSL_set_connect_state(ssl)
        }
        self.ssl = ssl
        self.incoming = incoming
        self.link = link
        self.context = context
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs; `link` is released after this
    }

    /// Writes the first flight (the client's ClientHello); nothing once the handshake is over.
    mutating func start() -> DTLSOutcome {
        guard case .handshaking = state else { return DTLSOutcome() }
        OpenSSLErrors.clear()
        return finish(advanceHandshake())
    }

    /// Feeds one datagram from the peer; ignored after failure or close.
    mutating func receive(_ datagram: UnsafeRawBufferPointer) -> DTLSOutcome {
        guard let base = datagram.baseAddress, !datagram.isEmpty, datagram.count <= Int(Int32.max) else {
            return DTLSOutcome()
        }
        switch state {
        case .handshaking, .connected: break
        case .failed, .closed: return DTLSOutcome()
        }
        OpenSSLErrors.clear()
        _ = parley_BIO_reset(incoming)
        guard BIO_write(incoming, base, Int32(datagram.count)) == Int32(datagram.count) else {
            _ = OpenSSLErrors.drain()
            return DTLSOutcome()
        }
        let newState: DTLSState? = if case .handshaking = state { advanceHandshake() } else { readApplicationData() }
        _ = parley_BIO_reset(incoming)  // never let a half-read datagram merge with the next
        return finish(newState)
    }

    /// Time until the retransmission timer fires, zero if it already has, nil when no timer runs.
    var nextTimeout: Duration? {
        var micros: Int64 = 0
        guard parley_DTLSv1_get_timeout_us(ssl, &micros) == 1 else { return nil }
        return .microseconds(micros)
    }

    /// Retransmits the last flight if its timer has expired (RFC 6347 §4.2.4), or fails with
    /// ``DTLSFailure/timedOut(_:)`` once OpenSSL gives up.
    mutating func handleTimeout() -> DTLSOutcome {
        guard case .handshaking = state else { return DTLSOutcome() }
        OpenSSLErrors.clear()
        if parley_DTLSv1_handle_timeout(ssl) < 0 {
            return finish(.failed(.timedOut(OpenSSLErrors.drain())))
        }
        return finish(nil)
    }

    /// Sends close_notify (RFC 5246 §7.2.1) and moves to ``DTLSState/closed``.
    mutating func close() -> DTLSOutcome {
        switch state {
        case .handshaking, .connected:
            OpenSSLErrors.clear()
            _ = SSL_shutdown(ssl)
            _ = OpenSSLErrors.drain()
            return finish(.closed)
        case .failed, .closed:
            return DTLSOutcome()
        }
    }

    private mutating func finish(_ newState: DTLSState?) -> DTLSOutcome {
        if let newState { state = newState }
        return DTLSOutcome(datagrams: link.takeOutgoing(), newState: newState)
    }

    private func advanceHandshake() -> DTLSState? {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return completeHandshake() }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return nil
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        default:
            let details = OpenSSLErrors.drain()
            // The verify callback turned the peer's certificate down: say which one it was.
            if let rejected = link.rejectedFingerprint {
                return .failed(.fingerprintMismatch(expected: link.expectedFingerprint, actual: rejected))
            }
            return .failed(.handshake(details.isEmpty ? "handshake failed" : details))
        }
    }

    /// Checks the peer's certificate again, then the SRTP profile and the keys (RFC 5764 §4.2).
    private func completeHandshake() -> DTLSState {
        let expected = link.expectedFingerprint
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            return .failed(.fingerprintMismatch(expected: expected, actual: nil))
        }
        let actual = DTLSFingerprint.of(certificate: peer, algorithm: expected.algorithm)
        X509_free(peer)
        guard actual == expected else { return .failed(.fingerprintMismatch(expected: expected, actual: actual)) }

        guard let selected = SSL_get_selected_srtp_profile(ssl) else { return .failed(.noSRTPProfile) }
        let id = UInt16(truncatingIfNeeded: selected.pointee.id)
        guard let profile = SRTPProfile(dtlsProtectionProfileID: id) else {
            return .failed(.unsupportedSRTPProfile(id))
        }
        var material = [UInt8](repeating: 0, count: profile.exportedKeyingMaterialLength)
        let label = Self.exporterLabel
        let exported = SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0)
        guard exported == 1, let keys = SRTPKeyingMaterial(exported: material, profile: profile) else {
            return .failed(.keyExport(OpenSSLErrors.drain()))
        }
        return .connected(keys)
    }

    /// After the handshake: answers retransmitted peer flights (OpenSSL resends its last
    /// flight), notices close_notify, and discards application data.
    private func readApplicationData() -> DTLSState? {
        var scratch = [UInt8](repeating: 0, count: 2048)
        while true {
            let result = SSL_read(ssl, &scratch, Int32(scratch.count))
            if result > 0 { continue }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return nil
            case SSL_ERROR_ZERO_RETURN:
                _ = SSL_shutdown(ssl)  // answer with our close_notify
                return .closed
            default:
                return .failed(.connection(OpenSSLErrors.drain()))
            }
        }
    }
}

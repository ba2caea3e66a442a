import COpenSSL
import CParleyShim

/// The per-endpoint state OpenSSL's callbacks reach through `SSL_get_ex_data` and `BIO_get_data`:
/// the datagrams written so far, the fingerprint the client must present, and the timer policy.
/// Owned by ``DTLSEndpoint``, which frees the `SSL` (and with it the BIOs) before this object.
final class DTLSLink {
    /// Each element is one `BIO_write` from the record layer: one record, sent as one datagram.
    var outgoing: [[UInt8]] = []
    let expectedFingerprint: DTLSFingerprint
    let initialTimeoutMicros: UInt32
    /// What the client presented when the verify callback turned it down.
    var rejectedFingerprint: DTLSFingerprint?

    init(expectedFingerprint: DTLSFingerprint, initialTimeoutMicros: UInt32) {
        self.expectedFingerprint = expectedFingerprint
        self.initialTimeoutMicros = initialTimeoutMicros
    }

    func takeOutgoing() -> [[UInt8]] {
        defer { outgoing.removeAll() }
        return outgoing
    }

    /// The `SSL` ex-data slot holding an unretained pointer to the link.
    static let exDataIndex: Int32 = parley_SSL_get_ex_new_index()

    static func from(ssl: OpaquePointer?) -> DTLSLink? {
        guard let ssl, let pointer = SSL_get_ex_data(ssl, exDataIndex) else { return nil }
        return Unmanaged<DTLSLink>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Accepts any chain (WebRTC certificates are self-signed) as long as the leaf matches the
    /// fingerprint from the offer, with the hash the offer named (RFC 5763 §5, RFC 8122 §5).
    /// Rejecting here makes OpenSSL send a fatal `bad_certificate` alert instead of finishing.
    static let verifyCallback: @convention(c) (Int32, OpaquePointer?) -> Int32 = { _, store in
        guard let store, X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
        let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx())
        guard let link = from(ssl: OpaquePointer(ssl)), let certificate = X509_STORE_CTX_get_current_cert(store)
        else { return 0 }
        let expected = link.expectedFingerprint
        let actual = DTLSFingerprint.of(certificate: certificate, algorithm: expected.algorithm)
        guard actual == expected else {
            link.rejectedFingerprint = actual
            return 0
        }
        X509_STORE_CTX_set_error(store, X509_V_OK)
        return 1
    }

    /// Retransmission timer (RFC 6347 §4.2.4.1): start at the configured value, double on each
    /// timeout, cap at 60 s.
    static let timerCallback: @convention(c) (OpaquePointer?, UInt32) -> UInt32 = { ssl, current in
        let initial = from(ssl: ssl)?.initialTimeoutMicros ?? 1_000_000
        return current == 0 ? initial : min(current &* 2, 60_000_000)
    }
}

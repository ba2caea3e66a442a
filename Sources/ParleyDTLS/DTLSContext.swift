import COpenSSL
import CParleyShim
import ParleySRTP

/// The relay's DTLS configuration, shared by every leg: make one per process at start-up.
///
/// DTLS 1.2 only (RFC 6347; aiortc and OpenSSL 3.0 know no DTLS 1.3, and Chromium falls back),
/// one role (server, or client for a peer that answered or offered `passive`), ECDHE suites with
/// a fresh P-256 certificate, the `use_srtp` extension (RFC 5764 §4.1) with the relay's
/// preference, and the peer's certificate — ECDSA or RSA — required but checked only against the
/// fingerprint from signalling (RFC 5763 §5).
public final class DTLSContext: @unchecked Sendable {
    /// `SSL_CTX *`, owned; OpenSSL allows concurrent `SSL_new` on a context that is no longer
    /// being configured.
    let context: OpaquePointer
    /// The relay's certificate; its fingerprint goes into every SDP answer.
    public let certificate: DTLSCertificate
    /// SRTP profiles in the relay's order of preference; OpenSSL picks the first of these that
    /// the client offered, whatever the client's order.
    public let srtpProfiles: [SRTPProfile]

    /// ECDHE-ECDSA first: the relay's certificate is ECDSA, aiortc offers nothing else, and
    /// Chromium offers all of these (AEAD first). The suite names the *server's* key, so the
    /// ECDHE-RSA ones matter only when the relay is the client of a server with an RSA
    /// certificate (GStreamer's webrtcbin makes RSA ones); a client's own certificate, ECDSA or
    /// RSA, only signs its CertificateVerify and works with any suite.
    public static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA",
        "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305",
        "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA",
    ].joined(separator: ":")

    /// Prefer AEAD_AES_128_GCM: about 4× cheaper per packet than AES-CM + HMAC-SHA1 here.
    public static let defaultSRTPProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80, .aeadAES256GCM]

    /// The SHA-256 fingerprint of ``certificate`` (`sha-256 AB:CD:…`) for `a=fingerprint`.
    public var fingerprint: DTLSFingerprint { certificate.fingerprint }

    /// Which end of the handshake endpoints made from the context play.
    public let role: DTLSRole

    /// Builds the context around `certificate`, or a freshly generated ECDSA P-256 one.
    /// `role` is `.server` for the relay; `.client` serves ``DTLSClient`` (test and load clients)
    /// and the relay's legs whose peer is `passive` (see ``sibling(role:)``),
    /// for which `srtpProfiles` is the `use_srtp` offer in order.
    public init(certificate: DTLSCertificate? = nil,
                srtpProfiles: [SRTPProfile] = DTLSContext.defaultSRTPProfiles,
                role: DTLSRole = .server) throws(DTLSSetupError) {
        OpenSSLErrors.clear()
        let certificate = if let certificate { certificate } else { try DTLSCertificate(keyType: .ecdsaP256) }
        let method = role == .server ? DTLS_server_method() : DTLS_client_method()
        guard !srtpProfiles.isEmpty, let context = SSL_CTX_new(method) else {
            throw DTLSSetupError(role == .server ? "SSL_CTX_new(DTLS_server_method)" : "SSL_CTX_new(DTLS_client_method)")
        }
        self.role = role
        self.context = context
        self.certificate = certificate
        self.srtpProfiles = srtpProfiles

        let useSRTP = srtpProfiles.map(\.openSSLName).joined(separator: ":")
        let options = parley_SSL_OP_NO_QUERY_MTU | parley_SSL_OP_NO_TICKET
            | parley_SSL_OP_CIPHER_SERVER_PREFERENCE | parley_SSL_OP_NO_RENEGOTIATION
        _ = SSL_CTX_set_options(context, options)
        let steps: [(String, () -> Bool)] = [
            ("set DTLS 1.2 minimum", { parley_SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1 }),
            ("set DTLS 1.2 maximum", { parley_SSL_CTX_set_max_proto_version(context, DTLS1_2_VERSION) == 1 }),
            ("SSL_CTX_set_cipher_list", { SSL_CTX_set_cipher_list(context, Self.cipherList) == 1 }),
            ("SSL_CTX_set1_groups_list", { parley_SSL_CTX_set1_groups_list(context, "X25519:P-256:P-384") == 1 }),
            ("SSL_CTX_use_certificate", { SSL_CTX_use_certificate(context, certificate.certificate) == 1 }),
            ("SSL_CTX_use_PrivateKey", { SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1 }),
            ("SSL_CTX_check_private_key", { SSL_CTX_check_private_key(context) == 1 }),
            // Unlike most of OpenSSL, this returns 0 on success.
            ("SSL_CTX_set_tlsext_use_srtp", { SSL_CTX_set_tlsext_use_srtp(context, useSRTP) == 0 }),
        ]
        for (operation, step) in steps where !step() {
            throw DTLSSetupError(operation)
        }
        // No session cache: every leg runs a full handshake with a fresh client certificate.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, DTLSLink.verifyCallback)
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A context with the same certificate and SRTP profiles playing `role`: the relay keeps a
    /// client one beside its server one, so its fingerprint is the same whichever side it plays.
    public func sibling(role: DTLSRole) throws(DTLSSetupError) -> DTLSContext {
        role == self.role ? self : try DTLSContext(certificate: certificate, srtpProfiles: srtpProfiles, role: role)
    }
}

/// The side of the DTLS handshake (RFC 6347): WebRTC picks it with `a=setup` (RFC 5763 §5).
public enum DTLSRole: Sendable, Hashable {
    /// `a=setup:passive`: waits for the ClientHello. The relay is this unless the peer is passive.
    case server
    /// `a=setup:active`: sends the ClientHello.
    case client
}

import COpenSSL
import CParleyShim
@testable import ParleyDTLS
import ParleySRTP

/// An OpenSSL DTLS 1.2 client with its own SSL_CTX and self-signed certificate, on memory BIOs:
/// the peer the server tests shake hands with. It writes a byte stream, which `takeRecords`
/// cuts at DTLS record boundaries (13-byte header, length in bytes 11–12, RFC 6347 §4.1) so a
/// test can group records into datagrams however it likes.
final class TestDTLSClient {
    /// Chromium's order (BUILDING.md).
    static let chromiumSRTPProfiles = "SRTP_AES128_CM_SHA1_80:SRTP_AEAD_AES_256_GCM:SRTP_AEAD_AES_128_GCM"

    let certificate: DTLSCertificate
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private(set) var isConnected = false
    private(set) var failure: String?

    /// - Parameters:
    ///   - srtpProfiles: `use_srtp` offer, nil for none.
    ///   - linkMTU: `DTLS_set_link_mtu`; small values make OpenSSL fragment the ClientHello.
    ///   - helloPadding: bytes of dummy ALPN names, to grow the ClientHello to Chromium's ~1.4 kB.
    ///   - retransmitMicros: a fixed retransmission timer instead of OpenSSL's 1 s.
    init(keyType: DTLSCertificate.KeyType = .ecdsaP256, srtpProfiles: String? = chromiumSRTPProfiles,
         linkMTU: Int = 1200, helloPadding: Int = 0, maxVersion: Int32 = DTLS1_2_VERSION,
         retransmitMicros: UInt32? = nil) throws {
        certificate = try DTLSCertificate(keyType: keyType, commonName: "test-client")
        context = SSL_CTX_new(DTLS_client_method())!
        _ = SSL_CTX_use_certificate(context, certificate.certificate)
        _ = SSL_CTX_use_PrivateKey(context, certificate.privateKey)
        _ = parley_SSL_CTX_set_max_proto_version(context, maxVersion)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER) { _, _ in 1 }  // pins by fingerprint below
        if let srtpProfiles { precondition(SSL_CTX_set_tlsext_use_srtp(context, srtpProfiles) == 0) }
        ssl = SSL_new(context)!
        readBIO = BIO_new(BIO_s_mem())!
        writeBIO = BIO_new(BIO_s_mem())!
        _ = parley_BIO_set_mem_eof_return(readBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)
        _ = SSL_set_options(ssl, parley_SSL_OP_NO_QUERY_MTU)
        precondition(parley_DTLS_set_link_mtu(ssl, linkMTU) == 1)
        if helloPadding > 0 {
            var protos: [UInt8] = []
            var remaining = helloPadding
            while remaining > 2 {
                let length = min(remaining - 1, 200)
                protos.append(UInt8(length))
                protos += [UInt8](repeating: UInt8(ascii: "p"), count: length)
                remaining -= length + 1
            }
            precondition(SSL_set_alpn_protos(ssl, protos, UInt32(protos.count)) == 0)
        }
        if let retransmitMicros {
            Self.fixedTimer = retransmitMicros
            DTLS_set_timer_cb(ssl) { _, _ in TestDTLSClient.fixedTimer }
        }
        SSL_set_connect_state(ssl)
    }

    nonisolated(unsafe) static var fixedTimer: UInt32 = 1_000_000

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Sends the first flight.
    func start() -> [[UInt8]] {
        drive()
        return takeRecords()
    }

    /// Feeds one datagram, returns the records the client wrote in response.
    func receive(_ datagram: [UInt8]) -> [[UInt8]] {
        _ = datagram.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
        if isConnected {
            var scratch = [UInt8](repeating: 0, count: 2048)
            while SSL_read(ssl, &scratch, Int32(scratch.count)) > 0 {}
        } else {
            drive()
        }
        return takeRecords()
    }

    /// Retransmits if the client's timer expired.
    func handleTimeout() -> [[UInt8]] {
        _ = parley_DTLSv1_handle_timeout(ssl)
        return takeRecords()
    }

    func closeNotify() -> [[UInt8]] {
        _ = SSL_shutdown(ssl)
        return takeRecords()
    }

    /// Whether the server's close_notify has arrived.
    var receivedCloseNotify: Bool { SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN != 0 }

    var selectedProfile: SRTPProfile? {
        guard let profile = SSL_get_selected_srtp_profile(ssl) else { return nil }
        return SRTPProfile(dtlsProtectionProfileID: UInt16(truncatingIfNeeded: profile.pointee.id))
    }

    /// The client's own export (RFC 5764 §4.2), to compare with the server's.
    func exportKeyingMaterial(length: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: length)
        let label = DTLSServer.exporterLabel
        guard SSL_export_keying_material(ssl, &out, length, label, label.utf8.count, nil, 0, 0) == 1 else { return nil }
        return out
    }

    /// The SHA-256 fingerprint of the certificate the server presented.
    var serverFingerprint: DTLSFingerprint? {
        guard let peer = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(peer) }
        return DTLSFingerprint.of(certificate: peer, algorithm: .sha256)
    }

    private func drive() {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isConnected = true
            return
        }
        let error = SSL_get_error(ssl, result)
        if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
            failure = OpenSSLErrors.drain()
        }
    }

    /// Everything written since the last call, cut into DTLS records.
    func takeRecords() -> [[UInt8]] {
        var data: UnsafeMutablePointer<CChar>?
        let length = parley_BIO_get_mem_data(writeBIO, &data)
        guard length > 0, let data else { return [] }
        let bytes = Array(UnsafeRawBufferPointer(start: data, count: length))
        _ = parley_BIO_reset(writeBIO)
        var records: [[UInt8]] = []
        var offset = 0
        while offset + 13 <= bytes.count {
            let recordLength = 13 + (Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12]))
            records.append(Array(bytes[offset..<min(offset + recordLength, bytes.count)]))
            offset += recordLength
        }
        return records
    }
}

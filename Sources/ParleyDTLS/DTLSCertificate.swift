import COpenSSL
import CParleyShim

/// A freshly generated self-signed certificate and its private key, as WebRTC uses them: nobody
/// checks the issuer; the peer pins the fingerprint sent in signalling (RFC 8827 §6.5).
public final class DTLSCertificate: @unchecked Sendable {
    /// The key kinds Parley makes. The relay's own certificate must be ECDSA (aiortc offers only
    /// ECDHE-ECDSA suites); RSA exists so tests can play an RSA-certificate client.
    public enum KeyType: Sendable, Hashable {
        case ecdsaP256
        case rsa2048
    }

    /// `X509 *`, owned; immutable after init, so sharing across threads is safe.
    let certificate: OpaquePointer
    /// `EVP_PKEY *`, owned.
    let privateKey: OpaquePointer
    /// The SHA-256 fingerprint, for the SDP answer's `a=fingerprint` (RFC 8122 §5).
    public let fingerprint: DTLSFingerprint

    /// Generates a key pair and a self-signed X.509 v3 certificate valid from an hour ago for
    /// `validityDays` days, signed with SHA-256.
    public init(keyType: KeyType = .ecdsaP256, commonName: String = "parley", validityDays: Int = 30) throws(DTLSSetupError) {
        let key: OpaquePointer? = switch keyType {
        case .ecdsaP256: parley_EVP_EC_gen("P-256")
        case .rsa2048: parley_EVP_RSA_gen(2048)
        }
        guard let key else { throw DTLSSetupError("generate \(keyType) key") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw DTLSSetupError("X509_new")
        }
        var serial: UInt64 = 0
        withUnsafeMutableBytes(of: &serial) { _ = RAND_bytes($0.baseAddress, Int32($0.count)) }
        let name = X509_get_subject_name(x509)
        let ok = X509_set_version(x509, 2) == 1  // v3
            && ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial >> 1) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x509), -3600) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x509), 86400 * validityDays) != nil
            && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(x509, name) == 1
            && X509_set_pubkey(x509, key) == 1
            && X509_sign(x509, key, EVP_sha256()) > 0
        guard ok, let fingerprint = DTLSFingerprint.of(certificate: x509, algorithm: .sha256) else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw DTLSSetupError("make self-signed certificate")
        }
        certificate = x509
        privateKey = key
        self.fingerprint = fingerprint
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The fingerprint with another hash, for an offer that named sha-384 or sha-512.
    public func fingerprint(_ algorithm: DTLSFingerprint.Algorithm) -> DTLSFingerprint? {
        DTLSFingerprint.of(certificate: certificate, algorithm: algorithm)
    }

    /// The certificate in PEM, e.g. to hand to another TLS stack in a test.
    public var certificatePEM: String {
        pem { PEM_write_bio_X509($0, certificate) }
    }

    /// The private key in unencrypted PKCS#8 PEM. Keep it in memory or in a private temp file.
    public var privateKeyPEM: String {
        pem { PEM_write_bio_PrivateKey($0, privateKey, nil, nil, 0, nil, nil) }
    }

    private func pem(_ write: (OpaquePointer) -> Int32) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = parley_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}

import COpenSSL
import CParleyShim

/// A certificate fingerprint as SDP carries it in `a=fingerprint` (RFC 8122 §5), e.g.
/// `sha-256 AB:CD:…`. DTLS-SRTP authenticates each side by matching the certificate it presents
/// against the fingerprint from signalling (RFC 5763 §5, RFC 8827 §6.5).
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash functions Parley accepts in an offer (RFC 8122 §5 names them; WebRTC uses
    /// sha-256, RFC 8827 §6.5, and older stacks with RSA certificates still send sha-1). MD5 and
    /// MD2, which RFC 8122 also lists, are refused.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        case sha1 = "sha-1"
        case sha224 = "sha-224"
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        var digestLength: Int {
            switch self {
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        var evpMessageDigest: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha224: EVP_sha224()
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    public let algorithm: Algorithm
    public let digest: [UInt8]

    public init(algorithm: Algorithm, digest: [UInt8]) {
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Parses an `a=fingerprint` value: hash name (case-insensitive) and colon-separated
    /// upper- or lower-case hex bytes (RFC 8122 §5). Nil for anything else.
    public init?(sdp value: some StringProtocol) {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()) else { return nil }
        var digest: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            digest.append(byte)
        }
        guard digest.count == algorithm.digestLength else { return nil }
        self.init(algorithm: algorithm, digest: digest)
    }

    /// The `a=fingerprint` value, upper-case hex as browsers write it: `sha-256 AB:CD:…`.
    public var sdpValue: String {
        algorithm.rawValue + " " + digest.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    public var description: String { sdpValue }

    /// The fingerprint of a DER-encoded X.509 certificate (`X509_digest`), or nil on failure.
    static func of(certificate: OpaquePointer, algorithm: Algorithm) -> DTLSFingerprint? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, algorithm.evpMessageDigest, &digest, &length) == 1 else { return nil }
        return DTLSFingerprint(algorithm: algorithm, digest: Array(digest.prefix(Int(length))))
    }
}

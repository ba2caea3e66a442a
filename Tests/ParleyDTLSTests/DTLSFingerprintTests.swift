import Testing
import ParleyDTLS

@Suite("a=fingerprint values (RFC 8122 §5) and the relay's certificate")
struct DTLSFingerprintTests {
    @Test("parse and format")
    func parse() throws {
        let bytes = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let text = "sha-256 " + bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        let fingerprint = try #require(DTLSFingerprint(sdp: text))
        #expect(fingerprint.algorithm == .sha256)
        #expect(fingerprint.digest == bytes)
        #expect(fingerprint.sdpValue == text)
        #expect(DTLSFingerprint(sdp: text.lowercased().replacingOccurrences(of: "sha-256", with: "SHA-256")) == fingerprint)
        #expect(DTLSFingerprint(sdp: "sha-1 " + Array(repeating: "AB", count: 20).joined(separator: ":"))?.algorithm == .sha1)
        #expect(DTLSFingerprint(sdp: "sha-224 " + Array(repeating: "AB", count: 28).joined(separator: ":"))?.algorithm == .sha224)
        #expect(DTLSFingerprint(sdp: "sha-1 " + Array(repeating: "AB", count: 32).joined(separator: ":")) == nil)
        #expect(DTLSFingerprint(sdp: "md5 " + Array(repeating: "AB", count: 16).joined(separator: ":")) == nil)
        #expect(DTLSFingerprint(sdp: "sha-256 " + Array(repeating: "AB", count: 31).joined(separator: ":")) == nil)
        #expect(DTLSFingerprint(sdp: "sha-256 " + Array(repeating: "ABC", count: 32).joined(separator: ":")) == nil)
        #expect(DTLSFingerprint(sdp: "sha-256") == nil)
        #expect(DTLSFingerprint(sdp: "sha-512 " + Array(repeating: "0f", count: 64).joined(separator: ":"))?.digest.count == 64)
    }

    @Test("the context's certificate is fresh ECDSA with a SHA-256 fingerprint in SDP form")
    func contextCertificate() throws {
        let first = try DTLSContext()
        let second = try DTLSContext()
        #expect(first.fingerprint != second.fingerprint)
        let value = first.fingerprint.sdpValue
        #expect(value.hasPrefix("sha-256 "))
        #expect(value.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(DTLSFingerprint(sdp: value) == first.fingerprint)
        #expect(first.certificate.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(first.certificate.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }
}

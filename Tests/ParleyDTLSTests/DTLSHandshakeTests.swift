import COpenSSL
import Foundation
import Testing
@testable import ParleyDTLS
import ParleySRTP

@Suite("DTLS-SRTP server handshake against an in-process OpenSSL client (RFC 6347, RFC 5764)")
struct DTLSHandshakeTests {
    static let context = try! DTLSContext()

    static func server(for client: TestDTLSClient, fingerprint: DTLSFingerprint? = nil,
                       timeout: Duration = .seconds(1)) throws -> DTLSServer {
        try DTLSServer(context: context, remoteFingerprint: fingerprint ?? client.certificate.fingerprint,
                       initialRetransmissionTimeout: timeout)
    }

    /// The connected state's keys, checked against the client's own export and its view.
    static func expectAgreement(_ server: borrowing DTLSServer, _ client: TestDTLSClient,
                                profile: SRTPProfile) throws {
        guard case .connected(let keys) = server.state else {
            Issue.record("server state \(server.state), client failure \(client.failure ?? "none")")
            return
        }
        #expect(client.isConnected)
        #expect(keys.profile == profile)
        #expect(client.selectedProfile == profile)
        let exported = try #require(client.exportKeyingMaterial(length: profile.exportedKeyingMaterialLength))
        #expect(SRTPKeyingMaterial(exported: exported, profile: profile) == keys)
        #expect(client.serverFingerprint == context.fingerprint)
    }

    @Test("Chromium's profile order gets AEAD_AES_128_GCM; keys agree and carry SRTP",
          arguments: [DTLSCertificate.KeyType.ecdsaP256, .rsa2048])
    func chromiumOrder(_ keyType: DTLSCertificate.KeyType) throws {
        let client = try TestDTLSClient(keyType: keyType)
        var server = try Self.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        try Self.expectAgreement(server, client, profile: .aeadAES128GCM)
        #expect(handshake.serverStates.count == 1)
        #expect(handshake.serverDatagrams.allSatisfy { $0.count <= server.mtu && (20...63).contains($0[0]) })

        // The keys work: client → relay SRTP.
        guard case .connected(let keys) = server.state else { return }
        var clientOut = try SRTPSession(profile: keys.profile, key: keys.clientWrite, direction: .outbound)
        var relayIn = try SRTPSession(profile: keys.profile, key: keys.serverInbound, direction: .inbound)
        var buffer = [UInt8](repeating: 0, count: 64)
        buffer[0] = 0x80
        var length = 32
        let statuses = buffer.withUnsafeMutableBytes { bytes in
            (clientOut.protectRTP(bytes, length: &length), relayIn.unprotectRTP(bytes, length: &length))
        }
        #expect(statuses == (.ok, .ok))
        #expect(length == 32)
    }

    @Test("a client offering only AES128_CM_SHA1_80 gets it")
    func onlyAESCM() throws {
        let client = try TestDTLSClient(srtpProfiles: "SRTP_AES128_CM_SHA1_80")
        var server = try Self.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        try Self.expectAgreement(server, client, profile: .aes128CMHMACSHA1_80)
    }

    @Test("a client offering only AEAD_AES_256_GCM gets it")
    func onlyGCM256() throws {
        let client = try TestDTLSClient(srtpProfiles: "SRTP_AEAD_AES_256_GCM")
        var server = try Self.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        try Self.expectAgreement(server, client, profile: .aeadAES256GCM)
    }

    @Test("an ECDSA or RSA client pinned by sha-1, sha-224, sha-256, sha-384 or sha-512 is accepted",
          arguments: [DTLSCertificate.KeyType.ecdsaP256, .rsa2048], DTLSFingerprint.Algorithm.allCases)
    func otherHashes(_ keyType: DTLSCertificate.KeyType, _ algorithm: DTLSFingerprint.Algorithm) throws {
        let client = try TestDTLSClient(keyType: keyType)
        var server = try Self.server(for: client, fingerprint: client.certificate.fingerprint(algorithm))
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        try Self.expectAgreement(server, client, profile: .aeadAES128GCM)
    }

    @Test("a client certificate that does not match the offer fails the handshake")
    func fingerprintMismatch() throws {
        let client = try TestDTLSClient()
        let other = try DTLSCertificate()
        var server = try Self.server(for: client, fingerprint: other.fingerprint)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        #expect(server.state == .failed(.fingerprintMismatch(expected: other.fingerprint,
                                                              actual: client.certificate.fingerprint)))
        #expect(!client.isConnected)
        #expect(client.failure != nil)  // it got a fatal alert
    }

    @Test("no use_srtp, or only DTLS 1.0, fails")
    func refusals() throws {
        let noSRTP = try TestDTLSClient(srtpProfiles: nil)
        var server = try Self.server(for: noSRTP)
        var handshake = Handshake()
        handshake.run(&server, noSRTP, first: noSRTP.start())
        #expect(server.state == .failed(.noSRTPProfile))

        let old = try TestDTLSClient(maxVersion: DTLS1_VERSION)
        var oldServer = try Self.server(for: old)
        handshake = Handshake()
        handshake.run(&oldServer, old, first: old.start())
        guard case .failed(.handshake(let reason)) = oldServer.state else {
            Issue.record("expected a handshake failure, got \(oldServer.state)")
            return
        }
        #expect(reason.contains("unsupported protocol"))
    }
}

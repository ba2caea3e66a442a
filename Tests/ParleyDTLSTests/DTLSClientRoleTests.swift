import Testing
@testable import ParleyDTLS
import ParleySRTP

/// The relay as the DTLS client (`a=setup:active`, for a peer that offered `passive`): its
/// ``DTLSTransport`` on the client sibling of its server context shakes hands with a server
/// holding an ECDSA or an RSA certificate (GStreamer's webrtcbin makes RSA ones), and both
/// ends derive the same SRTP keys, each protecting with its own write key (RFC 5764 §4.2).
@Suite("The relay as DTLS client (RFC 5763 §5: a passive peer)")
struct DTLSClientRoleTests {
    /// Runs both ends in memory until neither has anything to send.
    static func shake(_ client: inout DTLSTransport, _ server: inout DTLSServer) -> (client: [DTLSState], server: [DTLSState]) {
        var clientStates: [DTLSState] = []
        var serverStates: [DTLSState] = []
        var toServer = client.start().datagrams
        for _ in 0..<20 where !toServer.isEmpty {
            var toClient: [[UInt8]] = []
            for datagram in toServer {
                let outcome = datagram.withUnsafeBytes { server.receive($0) }
                toClient += outcome.datagrams
                if let state = outcome.newState { serverStates.append(state) }
            }
            toServer = []
            for datagram in toClient {
                let outcome = datagram.withUnsafeBytes { client.receive($0) }
                toServer += outcome.datagrams
                if let state = outcome.newState { clientStates.append(state) }
            }
        }
        return (clientStates, serverStates)
    }

    @Test("against an ECDSA or RSA server, with AEAD or only AES_CM_128_HMAC_SHA1_80",
          arguments: [DTLSCertificate.KeyType.ecdsaP256, .rsa2048],
          [[SRTPProfile.aeadAES128GCM, .aes128CMHMACSHA1_80], [.aes128CMHMACSHA1_80]])
    func handshake(_ serverKey: DTLSCertificate.KeyType, _ serverProfiles: [SRTPProfile]) throws {
        let relay = try DTLSContext()
        let relayClient = try relay.sibling(role: .client)
        #expect(relayClient.role == .client)
        #expect(relayClient.fingerprint == relay.fingerprint)  // one fingerprint whichever side it plays
        #expect(try relay.sibling(role: .server) === relay)

        let peer = try DTLSContext(certificate: DTLSCertificate(keyType: serverKey), srtpProfiles: serverProfiles)
        var client = try DTLSTransport(context: relayClient, remoteFingerprint: peer.fingerprint)
        var server = try DTLSServer(context: peer, remoteFingerprint: relay.fingerprint)
        #expect(client.role == .client)
        let states = Self.shake(&client, &server)
        guard case .connected(let clientKeys)? = states.client.first, case .connected(let serverKeys)? = states.server.first else {
            Issue.record("client \(states.client), server \(states.server)")
            return
        }
        #expect(clientKeys == serverKeys)
        #expect(clientKeys.profile == serverProfiles[0])

        // What the relay protects as client, the peer (server) unprotects, and back.
        var relayOut = try SRTPSession(profile: clientKeys.profile, key: clientKeys.outbound(for: .client), direction: .outbound)
        var peerIn = try SRTPSession(profile: serverKeys.profile, key: serverKeys.inbound(for: .server), direction: .inbound)
        var peerOut = try SRTPSession(profile: serverKeys.profile, key: serverKeys.outbound(for: .server), direction: .outbound)
        var relayIn = try SRTPSession(profile: clientKeys.profile, key: clientKeys.inbound(for: .client), direction: .inbound)
        for (sender, receiver) in [(0, 1), (2, 3)] {
            var buffer = [UInt8](repeating: 0, count: 96)
            buffer[0] = 0x80
            buffer[1] = 96
            var length = 40
            let statuses = buffer.withUnsafeMutableBytes { bytes in
                sender == 0
                    ? (relayOut.protectRTP(bytes, length: &length), peerIn.unprotectRTP(bytes, length: &length))
                    : (peerOut.protectRTP(bytes, length: &length), relayIn.unprotectRTP(bytes, length: &length))
            }
            #expect(statuses == (.ok, .ok), "direction \(sender)→\(receiver)")
            #expect(length == 40)
        }

        // Either end may close: the relay's close_notify closes the peer.
        let close = client.close()
        #expect(close.newState == .closed)
        let closing = try #require(close.datagrams.first).withUnsafeBytes { server.receive($0) }
        #expect(closing.newState == .closed)
    }

    @Test("a server whose certificate is not the one in its SDP is refused by the relay")
    func wrongServerCertificate() throws {
        let relay = try DTLSContext()
        let peer = try DTLSContext(certificate: DTLSCertificate(keyType: .rsa2048))
        let other = try DTLSCertificate(keyType: .rsa2048)
        var client = try DTLSTransport(context: relay.sibling(role: .client), remoteFingerprint: other.fingerprint)
        var server = try DTLSServer(context: peer, remoteFingerprint: relay.fingerprint)
        let states = Self.shake(&client, &server)
        #expect(states.client == [.failed(.fingerprintMismatch(expected: other.fingerprint, actual: peer.fingerprint))])
        #expect(!states.server.contains { if case .connected = $0 { true } else { false } })
    }

    @Test("a server-role transport sends nothing on start and waits")
    func serverStartsNothing() throws {
        let relay = try DTLSContext()
        var transport = try DTLSTransport(context: relay, remoteFingerprint: relay.fingerprint)
        #expect(transport.role == .server)
        #expect(transport.start().datagrams.isEmpty)
        #expect(transport.state == .handshaking)
    }
}

import Foundation
import Logging
import NIOCore
import NIOPosix
import ParleyDTLS
import ParleySRTP
import ParleySTUN
import Testing
@testable import ParleyRelay

/// The relay engine's DTLS on the wire, without a socket: a sink catches what the engine sends,
/// an in-process ParleyDTLS endpoint plays the peer. A peer with an RSA certificate pinned by
/// SHA-1, a passive peer for which the relay is the DTLS client, and a peer's close_notify
/// that ends its leg with a ``LegEvent/Kind/closed`` event for the call layer.
@Suite struct LegDTLSTests {
    let configuration = RelayConfiguration(host: "127.0.0.1", port: 0)
    let engine: RelayEngine
    let events: AsyncStream<LegEvent>
    let sink = CapturingSink()
    static let peerPort = 40_000

    /// Keeps what the engine sends, in order.
    final class CapturingSink: DatagramSink {
        var sent: [(bytes: [UInt8], to: PeerAddress)] = []
        func enqueue(_ bytes: UnsafeRawBufferPointer, to address: PeerAddress) -> Bool {
            sent.append((Array(bytes), address))
            return true
        }
        func flush() {}
        func take() -> [[UInt8]] {
            defer { sent.removeAll() }
            return sent.map(\.bytes)
        }
    }

    init() {
        let (events, continuation) = AsyncStream<LegEvent>.makeStream()
        self.events = events
        engine = RelayEngine(eventLoop: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                             logger: Logger(label: "test"), events: continuation)
        engine.output = sink
    }

    /// aiortc's offer with the peer's own fingerprint and `a=setup:<setup>`.
    func makeLeg(fingerprint: DTLSFingerprint, setup: String, relayContext: DTLSContext) throws -> (RelayLeg, String) {
        let offer = Fixtures.aiortcOffer.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("a=fingerprint:") }
            .map { $0.hasPrefix("a=setup:") ? "a=setup:\(setup)\na=fingerprint:\(fingerprint.sdpValue)" : String($0) }
            .joined(separator: "\n")
        let factory = LegFactory(configuration: configuration, port: 50000, dtlsContext: relayContext)
        let setup = try factory.makeLeg(id: .generate(), offer: offer, owner: "call-7")
        try engine.add(setup.leg)
        return (setup.leg, setup.answer)
    }

    func deliver(_ bytes: [UInt8]) {
        engine.receive(AddressedEnvelope(remoteAddress: try! SocketAddress(ipAddress: "127.0.0.1", port: Self.peerPort),
                                         data: ByteBuffer(bytes: bytes)))
    }

    /// A nominating check from the peer (RFC 8445 §7.3.1.5); the engine's STUN answer is dropped.
    func nominate(_ leg: RelayLeg) {
        deliver(STUNMessageBuilder.bindingRequest(
            transactionID: .random(), username: "\(leg.ice.localUfrag):YkJn", priority: 1,
            role: .controlling(tieBreaker: 1), useCandidate: true, key: STUNIntegrityKey(password: leg.ice.localPassword)))
        sink.sent.removeAll { !(20...63).contains($0.bytes[0]) }   // keep DTLS (RFC 7983), drop the STUN answer
    }

    /// Runs a client peer's handshake against the engine; the peer's SRTP keys once it connected.
    func handshake(_ peer: inout DTLSClient) -> SRTPKeyingMaterial? {
        var toRelay = peer.start().datagrams
        var keys: SRTPKeyingMaterial?
        for _ in 0..<10 where !toRelay.isEmpty {
            toRelay.forEach(deliver)
            toRelay = []
            for datagram in sink.take() {
                let outcome = datagram.withUnsafeBytes { peer.receive($0) }
                toRelay += outcome.datagrams
                if case .connected(let material)? = outcome.newState { keys = material }
            }
        }
        return keys
    }

    func nextEvent() async -> LegEvent? {
        var iterator = events.makeAsyncIterator()
        return await iterator.next()
    }

    @Test("an RSA-certificate client pinned by sha-1 connects; its close_notify closes the leg with an event")
    func rsaClientAndCloseNotify() async throws {
        let relayContext = try DTLSContext()
        let peerContext = try DTLSContext(certificate: DTLSCertificate(keyType: .rsa2048), role: .client)
        let sha1 = try #require(peerContext.certificate.fingerprint(.sha1))
        let (leg, answer) = try makeLeg(fingerprint: sha1, setup: "actpass", relayContext: relayContext)
        #expect(answer.contains("a=setup:passive"))
        #expect(leg.dtls.role == .server)
        nominate(leg)

        var peer = try DTLSClient(context: peerContext, remoteFingerprint: relayContext.fingerprint)
        #expect(handshake(&peer) != nil)
        #expect(leg.state == .connected)
        #expect(await nextEvent()?.kind == .connected(srtpProfile: "SRTP_AEAD_AES_128_GCM"))

        // The peer hangs up its transport: close_notify (RFC 5246 §7.2.1).
        peer.close().datagrams.forEach(deliver)
        #expect(leg.state == .closed)
        #expect(leg.srtp == nil)
        #expect(await nextEvent() == LegEvent(leg: leg.id, owner: "call-7", kind: .closed))
        #expect(!sink.take().isEmpty, "the relay answers with its own close_notify")
        // A closed leg is not declared dead later: one end, one event.
        engine.tick(now: .now() + .seconds(60))
        #expect(leg.state == .closed)
    }

    @Test("a passive peer: the relay answers active and sends its ClientHello once ICE nominates; keys agree")
    func relayAsClient() async throws {
        let relayContext = try DTLSContext()
        let peerContext = try DTLSContext(certificate: DTLSCertificate(keyType: .rsa2048))
        let (leg, answer) = try makeLeg(fingerprint: peerContext.fingerprint, setup: "passive", relayContext: relayContext)
        #expect(answer.contains("a=setup:active"))
        #expect(!answer.contains("a=setup:passive"))
        #expect(answer.contains("a=fingerprint:\(relayContext.fingerprint.sdpValue)"), "same certificate as the server side")
        #expect(leg.dtls.role == .client)
        #expect(sink.take().isEmpty, "nothing before ICE")

        nominate(leg)
        var toPeer = sink.sent.map(\.bytes)
        #expect(sink.sent.allSatisfy { $0.to == PeerAddress(try! SocketAddress(ipAddress: "127.0.0.1", port: Self.peerPort)) })
        _ = sink.take()
        #expect(toPeer.first?[0] == 22, "a DTLS handshake record: the ClientHello")

        var peer = try DTLSServer(context: peerContext, remoteFingerprint: relayContext.fingerprint)
        var peerKeys: SRTPKeyingMaterial?
        for _ in 0..<10 where !toPeer.isEmpty {
            for datagram in toPeer {
                let outcome = datagram.withUnsafeBytes { peer.receive($0) }
                outcome.datagrams.forEach(deliver)
                if case .connected(let keys)? = outcome.newState { peerKeys = keys }
            }
            toPeer = sink.take()
        }
        let keys = try #require(peerKeys)
        #expect(leg.state == .connected)
        #expect(await nextEvent()?.kind == .connected(srtpProfile: "SRTP_AEAD_AES_128_GCM"))

        // The peer (server) protects with the server write key; the relay (client) unprotects it.
        var peerOut = try SRTPSession(profile: keys.profile, key: keys.outbound(for: .server), direction: .outbound)
        var buffer = [UInt8](repeating: 0, count: 96)
        buffer[0] = 0x80
        buffer[1] = 96
        var length = 40
        let srtp = try #require(leg.srtp)
        let statuses = buffer.withUnsafeMutableBytes { bytes in
            (peerOut.protectRTP(bytes, length: &length), srtp.inbound.unprotectRTP(bytes, length: &length))
        }
        #expect(statuses == (.ok, .ok))
    }

    @Test("the relay's ClientHello is retransmitted by the timer until the passive peer answers")
    func clientRetransmits() throws {
        let relayContext = try DTLSContext()
        let peerContext = try DTLSContext()
        let (leg, _) = try makeLeg(fingerprint: peerContext.fingerprint, setup: "passive", relayContext: relayContext)
        nominate(leg)
        let first = sink.take()
        #expect(first.count == 1)
        engine.tick(now: .now())
        #expect(sink.take().isEmpty, "not before the timer")
        Thread.sleep(forTimeInterval: 1.1)   // OpenSSL's retransmission clock is the system's
        engine.tick(now: .now())
        let again = sink.take()
        // The same ClientHello in a new record: only the record sequence number (bytes 5–10) moves.
        #expect(again.count == 1)
        #expect(again.first.map { Array($0.dropFirst(13)) } == first.first.map { Array($0.dropFirst(13)) })
        #expect(again.first.map { Array($0[5..<11]) } != first.first.map { Array($0[5..<11]) })
    }
}

import Logging
import NIOCore
import NIOPosix
import ParleyDTLS
import ParleySTUN
import Testing
@testable import ParleyRelay

/// The leg table and the demultiplexer, without a socket: datagrams are handed to the engine
/// directly (no socket, so nothing is written) and the tables and counters are inspected.
@Suite struct RelayEngineTests {
    static let dtlsContext = try! DTLSContext()
    let configuration = RelayConfiguration(host: "127.0.0.1", port: 0)
    let engine: RelayEngine
    let events: AsyncStream<LegEvent>

    init() {
        let (events, continuation) = AsyncStream<LegEvent>.makeStream()
        self.events = events
        engine = RelayEngine(eventLoop: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                             logger: Logger(label: "test"), events: continuation)
    }

    func makeLeg(owner: String = "call-1") throws -> (RelayLeg, String) {
        let factory = LegFactory(configuration: configuration, port: 50000, dtlsContext: Self.dtlsContext)
        let setup = try factory.makeLeg(id: .generate(), offer: Fixtures.aiortcOffer, owner: owner)
        try engine.add(setup.leg)
        return (setup.leg, setup.answer)
    }

    func datagram(_ bytes: [UInt8], from port: Int) -> AddressedEnvelope<ByteBuffer> {
        AddressedEnvelope(remoteAddress: try! SocketAddress(ipAddress: "127.0.0.1", port: port),
                          data: ByteBuffer(bytes: bytes))
    }

    func check(for leg: RelayLeg, useCandidate: Bool) -> [UInt8] {
        STUNMessageBuilder.bindingRequest(
            transactionID: .random(), username: "\(leg.ice.localUfrag):YkJn", priority: 1,
            role: .controlling(tieBreaker: 1), useCandidate: useCandidate,
            key: STUNIntegrityKey(password: leg.ice.localPassword))
    }

    @Test("the answer is ICE-lite, passive, one host candidate, Opus and VP8 only, with the relay's SSRCs")
    func answer() throws {
        let (leg, answer) = try makeLeg()
        #expect(answer.contains("a=ice-lite"))
        #expect(answer.contains("a=setup:passive"))
        #expect(answer.contains("a=candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host"))
        #expect(answer.contains("a=ice-ufrag:\(leg.ice.localUfrag)"))
        #expect(answer.contains("a=fingerprint:\(Self.dtlsContext.fingerprint.sdpValue)"))
        #expect(answer.contains("a=rtpmap:96 opus/48000/2") && answer.contains("a=rtpmap:97 VP8/90000"))
        #expect(!answer.contains("H264") && !answer.contains("PCMU"))
        // RTX for VP8 only (RFC 4588), the relay's RTX stream paired with its video stream.
        #expect(answer.contains("a=rtpmap:98 rtx/90000\r\na=fmtp:98 apt=97\r\n"))
        #expect(!answer.contains("a=rtpmap:100 rtx") && !answer.contains("a=rtpmap:102 rtx"))
        let audio = try #require(leg.media.audio)
        let video = try #require(leg.media.video)
        #expect(answer.contains("a=ssrc:\(audio.localSSRC) ") && answer.contains("a=ssrc:\(video.localSSRC) "))
        let rtxSSRC = try #require(video.localRTXSSRC)
        #expect(video.rtxPayloadType == 98 && leg.mediaLookup.isRTX(98) && !leg.mediaLookup.isRTX(97))
        #expect(answer.contains("a=ssrc-group:FID \(video.localSSRC) \(rtxSSRC)\r\n") && answer.contains("a=ssrc:\(rtxSSRC) "))
        #expect(audio.localRTXSSRC == nil && audio.rtxPayloadType == nil)
        #expect(audio.remoteSSRCs == [428646249])
        #expect(video.remoteSSRCs.first == 2052986180, "the FID group's first SSRC is primary")
    }

    @Test("a valid check registers the address; nominated is not yet a send address; DTLS and SRTP are accepted only from it")
    func demultiplexing() throws {
        let (leg, _) = try makeLeg()
        engine.receive(datagram(check(for: leg, useCandidate: false), from: 40000))
        #expect(engine.legsByAddress[PeerAddress(ipv4: 0x7F00_0001, port: 40000)] === leg)
        #expect(leg.state == .handshaking)
        engine.receive(datagram(check(for: leg, useCandidate: true), from: 40000))
        #expect(leg.sendAddress == nil, "nominated, but nothing authenticated came from it yet")
        #expect(leg.path.isChecked(PeerAddress(ipv4: 0x7F00_0001, port: 40000)))

        engine.receive(datagram([22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 30), from: 40001))
        #expect(engine.counters[.dtlsForUnknownLeg] == 1)
        engine.receive(datagram([0x80, 96] + [UInt8](repeating: 0, count: 40), from: 40001))
        #expect(engine.counters[.unknownSource] == 1)
        engine.receive(datagram([0x80, 96] + [UInt8](repeating: 0, count: 40), from: 40000))
        #expect(engine.counters[.notConnected] == 1, "no keys before DTLS finishes")
        engine.receive(datagram([0xFF, 1, 2], from: 40000))
        #expect(engine.counters[.unknownKind] == 1)
        engine.receive(datagram([0, 1, 0, 0], from: 40000))
        #expect(engine.counters[.notSTUN] == 1)
        #expect(engine.counters.packetsIn == 7)
    }

    @Test("pair, echo and release keep the partner links and tables consistent")
    func legTable() throws {
        let (a, _) = try makeLeg(owner: "call-1")
        let (b, _) = try makeLeg(owner: "call-1")
        engine.receive(datagram(check(for: b, useCandidate: true), from: 40010))
        try engine.pair(a.id, b.id)
        #expect(a.target === b && b.target === a)
        #expect(a.plan != nil && b.plan != nil)
        try engine.echo(a.id)
        #expect(a.target === a)
        #expect(b.target == nil && b.plan == nil, "echoing a unpairs b")
        try engine.pair(a.id, b.id)
        engine.release(b.id)
        #expect(a.target == nil)
        #expect(engine.legs[b.id] == nil)
        #expect(engine.legsByUfrag[b.ice.localUfrag] == nil)
        #expect(engine.legsByAddress.isEmpty)
        #expect(engine.counters.legs == 1)
        #expect(throws: MediaRelayError.unknownLeg(b.id)) { try engine.echo(b.id) }
        engine.release(a.id)
        #expect(a.target == nil, "the echo cycle is broken on release")
    }

    @Test("a leg with no valid check for the consent timeout is dead, with an event")
    func consentTimeout() async throws {
        let (leg, _) = try makeLeg()
        engine.tick(now: .now() + .seconds(10))
        #expect(leg.state == .waitingForICE)
        engine.tick(now: .now() + .seconds(31))
        #expect(leg.state == .dead)
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event == LegEvent(leg: leg.id, owner: "call-1", kind: .dead))
    }
}

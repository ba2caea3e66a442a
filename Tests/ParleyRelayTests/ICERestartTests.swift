import Logging
import NIOCore
import NIOPosix
import ParleyDTLS
import ParleySTUN
import Testing
@testable import ParleyRelay

/// ICE restart of a leg without a socket (RFC 8445 §9, RFC 8839 §4.4.1.1.1): what the answer
/// keeps, what is refused, and how the ufrag table follows.
@Suite struct ICERestartTests {
    static let dtlsContext = try! DTLSContext()
    let configuration = RelayConfiguration(host: "127.0.0.1", port: 0)
    let engine: RelayEngine
    var factory: LegFactory { LegFactory(configuration: configuration, port: 50000, dtlsContext: Self.dtlsContext) }

    init() {
        let (_, continuation) = AsyncStream<LegEvent>.makeStream()
        engine = RelayEngine(eventLoop: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                             logger: Logger(label: "test"), events: continuation)
    }

    /// aiortc's offer with new ICE credentials, as a restart offer carries them.
    static let restartOffer = Fixtures.aiortcOffer
        .replacingOccurrences(of: "a=ice-ufrag:YkJn", with: "a=ice-ufrag:Nw4r")
        .replacingOccurrences(of: "a=ice-pwd:2uU7yPyO1KAgnOB3pqY6TO", with: "a=ice-pwd:9fQ2xLmV0aRtYbC7dE1gH5")

    func makeLeg() throws -> (RelayLeg, String) {
        let setup = try factory.makeLeg(id: .generate(), offer: Fixtures.aiortcOffer, owner: "call-1")
        try engine.add(setup.leg)
        return (setup.leg, setup.answer)
    }

    func restart(_ leg: RelayLeg, offer: String = ICERestartTests.restartOffer) throws(MediaRelayError) -> String {
        let basis = try engine.restartBasis(leg.id)
        let restart = try factory.restart(basis, offer: offer)
        try engine.applyRestart(leg.id, restart, basisVersion: basis.parameters.sessionVersion)
        return restart.answer
    }

    static func attribute(_ name: String, in sdp: String) -> [String] {
        sdp.split(separator: "\r\n").filter { $0.hasPrefix("a=\(name):") }.map { String($0.dropFirst(name.count + 3)) }
    }

    static func origin(_ sdp: String) -> [Substring] {
        (sdp.split(separator: "\r\n").first { $0.hasPrefix("o=") } ?? "").split(separator: " ")
    }

    @Test("the answer has new ufrag/pwd, the same fingerprint, setup, SSRCs and session id, and the next version")
    func answerKeepsWhatTheLegKeeps() throws {
        let (leg, first) = try makeLeg()
        let media = leg.media
        let second = try restart(leg)
        for name in ["ice-ufrag", "ice-pwd"] {
            #expect(Set(Self.attribute(name, in: first)).isDisjoint(with: Self.attribute(name, in: second)), "\(name) renewed")
        }
        for name in ["fingerprint", "setup", "ssrc", "mid", "rtpmap", "extmap", "candidate"] {
            #expect(Self.attribute(name, in: first) == Self.attribute(name, in: second), "\(name) kept")
        }
        #expect(Self.origin(second)[1] == Self.origin(first)[1], "same o= session id")
        #expect(Self.origin(second)[2] == "2" && Self.origin(first)[2] == "1", "o= version raised (RFC 3264 §8)")
        #expect(leg.media == media)
        #expect(leg.iceRestarts == 1 && engine.counters.iceRestarts == 1)
    }

    @Test("both ufrags find the leg until the client uses the new one; the old one goes after the overlap")
    func ufragTable() throws {
        let (leg, _) = try makeLeg()
        let oldUfrag = leg.ice.localUfrag
        let answer = try restart(leg)
        let newUfrag = try #require(Self.attribute("ice-ufrag", in: answer).first)
        let newPassword = try #require(Self.attribute("ice-pwd", in: answer).first)
        #expect(engine.legsByUfrag[oldUfrag] === leg && engine.legsByUfrag[newUfrag] === leg)

        engine.receive(datagram(check("\(newUfrag):Nw4r", password: newPassword), from: 40000))
        #expect(leg.ice.localUfrag == newUfrag, "the new credentials are current")
        #expect(engine.legsByUfrag[oldUfrag] === leg, "old checks are answered for the overlap")
        engine.release(leg.id)
        #expect(engine.legsByUfrag.isEmpty)
    }

    @Test("a second restart before the first is used gives the unused ufrag back")
    func restartTwice() throws {
        let (leg, _) = try makeLeg()
        let first = try #require(Self.attribute("ice-ufrag", in: try restart(leg)).first)
        let again = Self.restartOffer.replacingOccurrences(of: "a=ice-ufrag:Nw4r", with: "a=ice-ufrag:Qz8k")
        let second = try #require(Self.attribute("ice-ufrag", in: try restart(leg, offer: again)).first)
        #expect(engine.legsByUfrag[first] == nil && engine.legsByUfrag[second] === leg)
        #expect(engine.legsByUfrag.count == 2)
    }

    @Test("refused: the ufrag in use, another fingerprint, changed codecs or sections, a dead leg, an unknown leg")
    func refusals() throws {
        let (leg, _) = try makeLeg()
        #expect(throws: MediaRelayError.notAnICERestart) { try restart(leg, offer: Fixtures.aiortcOffer) }
        let otherCertificate = Self.restartOffer.replacingOccurrences(of: "sha-256 BF:58", with: "sha-256 AF:58")
        #expect(code { try restart(leg, offer: otherCertificate) } == "fingerprint_changed")
        let otherCodec = Self.restartOffer.replacingOccurrences(of: "UDP/TLS/RTP/SAVPF 96 9 0 8", with: "UDP/TLS/RTP/SAVPF 111 9 0 8")
            .replacingOccurrences(of: "a=rtpmap:96 opus/48000/2", with: "a=rtpmap:111 opus/48000/2")
        #expect(code { try restart(leg, offer: otherCodec) } == "media_changed")
        let noVideo = Self.restartOffer.replacingOccurrences(of: "m=video 44648", with: "m=video 0")
        #expect(code { try restart(leg, offer: noVideo) } == "media_changed")
        let sendOnly = Self.restartOffer.replacingOccurrences(of: "a=sendrecv", with: "a=sendonly")
        #expect(code { try restart(leg, offer: sendOnly) } == "media_changed", "the relay would stop sending")
        #expect(code { try restart(leg, offer: "this is not SDP") } == "invalid_offer")
        #expect(leg.iceRestarts == 0 && engine.legsByUfrag.count == 1, "a refused offer changes nothing")

        leg.state = .dead
        #expect(code { try restart(leg) } == "leg_not_live")
        engine.release(leg.id)
        #expect(code { try restart(leg) } == "unknown_leg")
        #expect(MediaRelayError.restartRefused(code: "fingerprint_changed", "").parleyError.kind == .conflict)
        #expect(MediaRelayError.notAnICERestart.parleyError.kind == .badRequest)
    }

    @Test("SSRCs learnt from the client's RTP survive a restart offer without a=ssrc; new header extension ids are taken")
    func mediaAcrossRestart() throws {
        let (leg, _) = try makeLeg()
        leg.media.learnRemoteSSRC(0xABCD_0001, for: .audio)
        let withoutSSRCs = Self.restartOffer.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("a=ssrc") }.joined(separator: "\n")
            .replacingOccurrences(of: "a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level", with: "a=extmap:5 urn:ietf:params:rtp-hdrext:ssrc-audio-level")
        _ = try restart(leg, offer: withoutSSRCs)
        #expect(leg.media.audio?.remoteSSRCs.first == 0xABCD_0001)
        #expect(leg.media.audio?.extensionID("urn:ietf:params:rtp-hdrext:ssrc-audio-level") == 5)
        #expect(leg.media.video?.remotePrimarySSRC == 2052986180)
    }

    @Test("a restart answered meanwhile makes a stale one fail rather than overwrite it")
    func staleRestart() throws {
        let (leg, _) = try makeLeg()
        let basis = try engine.restartBasis(leg.id)
        let planned = try factory.restart(basis, offer: Self.restartOffer)
        _ = try restart(leg, offer: Self.restartOffer.replacingOccurrences(of: "a=ice-ufrag:Nw4r", with: "a=ice-ufrag:Qz8k"))
        #expect(code { try engine.applyRestart(leg.id, planned, basisVersion: basis.parameters.sessionVersion) } == "restart_in_progress")
    }

    // MARK: Helpers

    func code(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as MediaRelayError { return error.code } catch { return "\(error)" }
        return nil
    }

    func check(_ username: String, password: String, useCandidate: Bool = true) -> [UInt8] {
        STUNMessageBuilder.bindingRequest(transactionID: .random(), username: username, priority: 1,
                                          role: .controlling(tieBreaker: 1), useCandidate: useCandidate,
                                          key: STUNIntegrityKey(password: password))
    }

    func datagram(_ bytes: [UInt8], from port: Int) -> AddressedEnvelope<ByteBuffer> {
        AddressedEnvelope(remoteAddress: try! SocketAddress(ipAddress: "127.0.0.1", port: port), data: ByteBuffer(bytes: bytes))
    }
}

import ParleyDTLS
import ParleySRTP
import Testing
@testable import ParleyRelay

/// A leg's client may send RTP with only so many SSRCs (`media.maxSSRCsPerLeg`): a client that
/// cycles SSRCs cannot make the relay learn (and rebuild its plans for) one after another.
extension LegDTLSTests {
    /// A leg through ICE and DTLS, and the client's outbound SRTP session to send on it.
    struct ConnectedLeg: ~Copyable {
        let leg: RelayLeg
        var protector: SRTPSession
    }

    func connectedLeg() throws -> ConnectedLeg {
        let relayContext = try DTLSContext()
        let peerContext = try DTLSContext(role: .client)
        let (leg, _) = try makeLeg(fingerprint: peerContext.fingerprint, setup: "actpass", relayContext: relayContext)
        nominate(leg)
        var peer = try DTLSClient(context: peerContext, remoteFingerprint: relayContext.fingerprint)
        let keys = handshake(&peer)
        let material = try #require(keys)
        return ConnectedLeg(leg: leg, protector: try SRTPSession(profile: material.profile, key: material.outbound(for: .client),
                                                                 direction: .outbound))
    }

    @Test("RTP with a new SSRC past the leg's budget is dropped ssrc_limit; SSRCs already seen still pass")
    func ssrcsPerLegAreCapped() throws {
        var client = try connectedLeg()
        let leg = client.leg
        #expect(leg.state == .connected)

        var sequence: UInt16 = 1
        /// One Opus packet (payload type 96 in the offer) from `ssrc`, protected as the client would.
        func sendAudio(ssrc: UInt32) {
            var packet = [UInt8](repeating: 0, count: 128)
            packet[0] = 0x80
            packet[1] = 96
            packet[2] = UInt8(sequence >> 8); packet[3] = UInt8(sequence & 0xFF)
            sequence &+= 1
            withUnsafeBytes(of: ssrc.bigEndian) { packet.replaceSubrange(8..<12, with: $0) }
            var length = 12 + 20
            let status = packet.withUnsafeMutableBytes { client.protector.protectRTP($0, length: &length) }
            #expect(status == .ok)
            deliver(Array(packet[0..<length]))
        }

        let limit = configuration.maxSSRCsPerLeg
        for ssrc in 1...UInt32(limit) { sendAudio(ssrc: ssrc) }
        #expect(engine.counters[.ssrcLimit] == 0, "up to the budget, every new SSRC is taken")
        #expect(engine.counters[.noTarget] == UInt64(limit), "and goes on (to no partner: this leg has none)")

        sendAudio(ssrc: 1000)
        #expect(engine.counters[.ssrcLimit] == 1, "one more new SSRC is dropped under its own reason")
        sendAudio(ssrc: 1001)
        #expect(engine.counters[.ssrcLimit] == 2)
        #expect(leg.media.audio?.remotePrimarySSRC == UInt32(limit), "nor was it learned")

        sendAudio(ssrc: 1)
        #expect(engine.counters[.ssrcLimit] == 2, "an SSRC the leg already used still passes")
        #expect(engine.counters[.noTarget] == UInt64(limit) + 1)
        #expect(leg.media.audio?.remotePrimarySSRC == 1)
        // libsrtp made a stream for each SSRC that authenticated; a refused one's went again.
        #expect(leg.srtp?.inbound.removeStream(ssrc: 1000) == false, "the refused SSRC keeps no libsrtp stream")
        #expect(leg.srtp?.inbound.removeStream(ssrc: 2) == true, "an admitted one has its stream")
    }

    @Test("SRTCP from a new sender SSRC past the leg's budget is dropped ssrc_limit, and keeps no libsrtp stream")
    func rtcpSendersAreCapped() throws {
        var client = try connectedLeg()
        let leg = client.leg
        /// An empty receiver report (RFC 3550 §6.4.2) from `ssrc`, protected as the client would.
        func sendReport(ssrc: UInt32) {
            var packet = [UInt8](repeating: 0, count: 64)
            packet[0] = 0x80
            packet[1] = 201
            packet[3] = 1
            withUnsafeBytes(of: ssrc.bigEndian) { packet.replaceSubrange(4..<8, with: $0) }
            var length = 8
            let status = packet.withUnsafeMutableBytes { client.protector.protectRTCP($0, length: &length) }
            #expect(status == .ok)
            deliver(Array(packet[0..<length]))
        }
        let limit = configuration.maxSSRCsPerLeg
        for ssrc in 1...UInt32(limit) { sendReport(ssrc: ssrc) }
        #expect(engine.counters[.ssrcLimit] == 0)
        for ssrc in 5000..<5010 as Range<UInt32> { sendReport(ssrc: ssrc) }
        #expect(engine.counters[.ssrcLimit] == 10)
        #expect(leg.srtp?.inbound.removeStream(ssrc: 5003) == false, "a refused sender keeps no libsrtp stream")
        sendReport(ssrc: 1)
        #expect(engine.counters[.ssrcLimit] == 10, "a sender already seen still passes")
        let audio = try #require(leg.media.audio?.remotePrimarySSRC)
        sendReport(ssrc: audio)
        #expect(engine.counters[.ssrcLimit] == 10, "the offer's own SSRCs cost nothing of the budget")
    }
}

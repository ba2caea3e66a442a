import Testing
@testable import ParleySDP

/// The values in Fixtures/aiortc-1.16-offer.sdp, as a relay will read them.
@Suite("Parsing aiortc 1.16's offer")
struct AiortcOfferTests {
    let offer: SessionDescription

    init() throws {
        offer = try SessionDescription(parsing: Fixture.aiortc())
    }

    @Test("Session level")
    func session() {
        #expect(offer.origin.sessionID == "4004337425")
        #expect(offer.origin.sessionVersion == "4004337425")
        #expect(offer.origin.address == "0.0.0.0")
        #expect(offer.bundleMids == ["0", "1"])
        #expect(offer.msidSemantic == "WMS *")
        #expect(!offer.extmapAllowMixed)
        #expect(offer.media.count == 2)
    }

    @Test("Audio section: Opus at 96 without fmtp or feedback, candidates inline")
    func audio() {
        let audio = offer.media[0]
        #expect(audio.port == 50831)
        #expect(audio.connection?.address == "127.0.0.1")
        #expect(audio.mid == "0")
        #expect(audio.payloadTypes == [96, 9, 0, 8])
        #expect(audio.rtpMap(for: 96) == SDPRTPMap(payloadType: 96, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.formatParameters(for: 96) == nil)
        #expect(audio.rtcpFeedback(for: 96).isEmpty)
        #expect(audio.extMaps == [SDPExtMap(id: 1, uri: "urn:ietf:params:rtp-hdrext:sdes:mid"),
                                  SDPExtMap(id: 2, uri: "urn:ietf:params:rtp-hdrext:ssrc-audio-level")])
        #expect(audio.ssrcs == [428_646_249])
        #expect(audio.cname(for: 428_646_249) == "ef89ce9e-f51a-444e-8a65-54d3ba498a99")
        #expect(audio.explicitDirection == .sendrecv)
        #expect(audio.rtcpMux)
        #expect(!audio.rtcpReducedSize)
        #expect(audio.iceUfrag == "YkJn")
        #expect(audio.icePwd == "2uU7yPyO1KAgnOB3pqY6TO")
        #expect(audio.iceOptions.isEmpty)
        #expect(audio.setup == .actpass)
        #expect(audio.endOfCandidates)
        #expect(audio.candidates == [SDPCandidate(
            foundation: "16572de626da4e5384a0ce2d0d93678a", component: 1, transport: "udp", priority: 2_130_706_431,
            address: "127.0.0.1", port: 50831, type: "host")])
    }

    @Test("Three fingerprints: sha-256, sha-384, sha-512")
    func fingerprints() {
        let fingerprints = offer.media[0].fingerprints
        #expect(fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(fingerprints.map { $0.bytes.count } == [32, 48, 64])
        #expect(fingerprints[0].value
            == "BF:58:77:6A:77:2D:4F:09:E2:41:AC:31:E6:B0:F6:B8:EB:37:49:64:49:2D:18:C6:27:87:C2:87:F8:45:9A:CC")
        #expect(offer.media[1].fingerprints == fingerprints)
    }

    @Test("Video section: VP8 at 97 with nack, nack pli, goog-remb; RTX in a FID group")
    func video() {
        let video = offer.media[1]
        #expect(video.port == 44648)
        #expect(video.mid == "1")
        #expect(video.payloadTypes == [97, 98, 99, 100, 101, 102])
        #expect(video.rtpMap(for: 97) == SDPRTPMap(payloadType: 97, encodingName: "VP8", clockRate: 90000))
        #expect(video.rtcpFeedback(for: 97).map(\.feedback) == ["nack", "nack pli", "goog-remb"])
        #expect(video.formatParameters(for: 98)?["apt"] == "97")
        #expect(video.formatParameters(for: 99)?["profile-level-id"] == "42001f")
        #expect(video.extMaps == [SDPExtMap(id: 1, uri: "urn:ietf:params:rtp-hdrext:sdes:mid"),
                                  SDPExtMap(id: 3, uri: "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time")])
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [2_052_986_180, 2_352_205_867])])
        #expect(video.ssrcs == [2_052_986_180, 2_352_205_867])
        #expect(video.candidates.first?.port == 44648)
    }

    @Test("Serialising and parsing again gives the same value")
    func roundTrip() throws {
        #expect(try SessionDescription(parsing: offer.text) == offer)
    }
}

import Testing
@testable import ParleySDP

/// The values in Fixtures/chromium-156-offer.sdp, as a relay will read them.
@Suite("Parsing Chromium 156's offer")
struct ChromiumOfferTests {
    let offer: SessionDescription

    init() throws {
        offer = try SessionDescription(parsing: Fixture.chromium())
    }

    @Test("Session level")
    func session() {
        #expect(offer.origin == SDPOrigin(username: "-", sessionID: "811824625529771800", sessionVersion: "2",
                                          networkType: "IN", addressType: "IP4", address: "127.0.0.1"))
        #expect(offer.sessionName == "-")
        #expect(offer.timings == [SDPTiming(start: 0, stop: 0)])
        #expect(offer.bundleMids == ["0", "1"])
        #expect(offer.extmapAllowMixed)
        #expect(offer.msidSemantic == "WMS 95d9f5ac-559a-4318-a54d-79001f1ea81a")
        #expect(!offer.iceLite)
        #expect(offer.iceUfrag == nil)  // Chromium puts ICE and DTLS lines in each section
        #expect(offer.media.map(\.kind) == [.audio, .video])
    }

    @Test("Audio section")
    func audio() throws {
        let audio = offer.media[0]
        #expect(audio.port == 36600)
        #expect(audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.payloadTypes == [111, 63, 9, 0, 8, 13, 110, 126])
        #expect(audio.connection == SDPConnection(networkType: "IN", addressType: "IP4", address: "127.0.0.1"))
        #expect(audio.mid == "0")
        #expect(audio.iceUfrag == "HHOg")
        #expect(audio.icePwd == "o8P3uzLkG2/QCIf7XOK8meF0")
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.fingerprints == [SDPFingerprint(
            algorithm: "sha-256",
            value: "07:88:C6:EF:51:0C:57:44:A1:CF:D3:59:B1:E9:88:28:5F:E2:5D:78:C0:9A:14:E4:89:F1:BC:17:30:40:FD:E8")])
        #expect(audio.fingerprints.first?.bytes.count == 32)
        #expect(audio.setup == .actpass)
        #expect(audio.direction == .sendrecv)
        #expect(audio.rtcpMux)
        #expect(audio.rtcpReducedSize)
        #expect(!audio.endOfCandidates)
        #expect(audio.extMaps.map(\.id) == [1, 2, 3, 4])
        #expect(audio.extMaps.map(\.uri) == [
            "urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "urn:ietf:params:rtp-hdrext:sdes:mid",
        ])
        #expect(audio.rtpMap(for: 111) == SDPRTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.rtpMap(for: 63) == SDPRTPMap(payloadType: 63, encodingName: "red", clockRate: 48000, channels: 2))
        #expect(audio.rtpMap(for: 126) == SDPRTPMap(payloadType: 126, encodingName: "telephone-event", clockRate: 8000))
        let fmtp = try #require(audio.formatParameters(for: 111))
        #expect(fmtp.parameters == "minptime=10;useinbandfec=1")
        #expect(fmtp["minptime"] == "10")
        #expect(fmtp["useinbandfec"] == "1")
        #expect(audio.formatParameters(for: 63)?.parameters == "111/111")
        #expect(audio.rtcpFeedback(for: 111) == [SDPRTCPFeedback(payloadType: 111, type: "transport-cc")])
        #expect(audio.ssrcs == [376_699_517])
        #expect(audio.cname(for: 376_699_517) == "kIqmRVxs0C2132ye")
        #expect(audio.msid == SDPMediaStreamID(streamID: "95d9f5ac-559a-4318-a54d-79001f1ea81a",
                                               trackID: "df9174ed-9417-448e-9eca-1909ea0386cd"))
        #expect(audio.value(of: "rtcp") == "9 IN IP4 0.0.0.0")
        #expect(audio.value(of: "rtcp-xr") == "rcvr-rtt=all")  // unknown to the codec, kept as text
    }

    @Test("Audio candidates: a UDP host and a TCP active one")
    func candidates() {
        let candidates = offer.media[0].candidates
        #expect(candidates.count == 2)
        #expect(candidates[0] == SDPCandidate(
            foundation: "2310986352", component: 1, transport: "udp", priority: 2_122_260_223, address: "127.0.0.1",
            port: 36600, type: "host", extensions: [
                .init(name: "generation", value: "0"), .init(name: "network-id", value: "1"),
                .init(name: "network-cost", value: "50"),
            ]))
        #expect(candidates[1].transport == "tcp")
        #expect(candidates[1].port == 9)
        #expect(candidates[1].extensions.first == .init(name: "tcptype", value: "active"))
        #expect(offer.media[1].candidates.isEmpty)
    }

    @Test("Video section")
    func video() {
        let video = offer.media[1]
        #expect(video.port == 9)
        #expect(video.connection?.address == "0.0.0.0")
        #expect(video.mid == "1")
        #expect(video.payloadTypes == [96, 97, 102, 103, 104, 107, 108, 109, 114, 115, 116, 117, 39, 40, 45, 46, 98, 99,
                                       100, 101, 118, 119, 120])
        #expect(video.rtpMap(for: 96) == SDPRTPMap(payloadType: 96, encodingName: "VP8", clockRate: 90000))
        #expect(video.rtpMap(for: 97)?.encodingName == "rtx")
        #expect(video.formatParameters(for: 97)?["apt"] == "96")
        #expect(video.rtpMap(for: 45)?.encodingName == "AV1")
        #expect(video.rtpMap(for: 98)?.encodingName == "VP9")
        #expect(video.rtpMap(for: 120)?.encodingName == "ulpfec")
        #expect(video.rtcpFeedback(for: 96).map(\.feedback) == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(video.extMaps.map(\.id) == [14, 2, 13, 3, 5, 6, 7, 8, 4, 10, 11])
        #expect(video.extMaps.first?.uri == "urn:ietf:params:rtp-hdrext:toffset")
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [3_574_137_062, 1_852_307_589])])
        #expect(video.ssrcs == [3_574_137_062, 1_852_307_589])
        #expect(video.cname(for: 1_852_307_589) == "kIqmRVxs0C2132ye")
        #expect(video.iceUfrag == "HHOg")
    }

    @Test("Serialising and parsing again gives the same value")
    func roundTrip() throws {
        let again = try SessionDescription(parsing: offer.text)
        #expect(again == offer)
        #expect(offer.text.hasPrefix("v=0\r\no=- 811824625529771800 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"))
    }
}

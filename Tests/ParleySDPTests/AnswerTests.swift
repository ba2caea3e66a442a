import Testing
@testable import ParleySDP

@Suite("Answering offers as an ICE-lite relay")
struct AnswerTests {
    static let fingerprint = "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"

    let relay = SDPRelayParameters(
        iceUfrag: "prly", icePwd: "relaypasswordrelaypassword", fingerprintSHA256: AnswerTests.fingerprint,
        address: "203.0.113.5", port: 50000,
        streams: ["0": SDPRelayStream(ssrc: 1111, cname: "parley-relay", trackID: "audio0"),
                  "1": SDPRelayStream(ssrc: 2222, cname: "parley-relay", trackID: "video0")],
        sessionID: 42, sessionVersion: 1)

    private func lines(_ answer: SDPAnswer) -> [String] {
        answer.sdp.split(separator: "\r\n").map(String.init)
    }

    /// The lines every accepted section starts with, given its m= line and mid.
    private func transportLines(_ mLine: String, mid: String) -> [String] {
        [mLine,
         "c=IN IP4 203.0.113.5",
         "a=candidate:1 1 udp 2130706431 203.0.113.5 50000 typ host",
         "a=end-of-candidates",
         "a=ice-ufrag:prly",
         "a=ice-pwd:relaypasswordrelaypassword",
         "a=fingerprint:sha-256 \(AnswerTests.fingerprint)",
         "a=setup:passive",
         "a=mid:\(mid)"]
    }

    @Test("Chromium's offer gets Opus 111 and VP8 96, the whole answer line by line")
    func chromiumAnswer() throws {
        let offer = try SessionDescription(parsing: Fixture.chromium())
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        let expected = [
            "v=0",
            "o=- 42 1 IN IP4 203.0.113.5",
            "s=-",
            "t=0 0",
            "a=ice-lite",
            "a=group:BUNDLE 0 1",
            "a=msid-semantic:WMS parley",
        ] + transportLines("m=audio 50000 UDP/TLS/RTP/SAVPF 111", mid: "0") + [
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=sendrecv",
            "a=msid:parley audio0",
            "a=rtcp-mux",
            "a=rtpmap:111 opus/48000/2",
            "a=rtcp-fb:111 transport-cc",
            "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=ssrc:1111 cname:parley-relay",
        ] + transportLines("m=video 50000 UDP/TLS/RTP/SAVPF 96", mid: "1") + [
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=sendrecv",
            "a=msid:parley video0",
            "a=rtcp-mux",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 goog-remb",
            "a=rtcp-fb:96 transport-cc",
            "a=rtcp-fb:96 ccm fir",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=ssrc:2222 cname:parley-relay",
        ]
        #expect(lines(answer) == expected)
        #expect(answer.sdp.hasSuffix("\r\n"))
        // Nothing the relay does not forward slipped in.
        for dropped in ["red/", "rtx/", "H264", "VP9", "AV1", "ulpfec", "G722", "PCMU", "telephone-event", "extmap-allow-mixed",
                        "toffset", "rtcp-rsize", "actpass", "trickle"] {
            #expect(!answer.sdp.contains(dropped), "\(dropped)")
        }
        // The answer is itself valid SDP.
        #expect(try SessionDescription(parsing: answer.sdp) == answer.session)
    }

    @Test("Chromium summary: what the relay needs per section")
    func chromiumSummary() throws {
        let answer = try SDPAnswerer.answer(offer: SessionDescription(parsing: Fixture.chromium()), relay: relay)
        let negotiation = answer.negotiation
        #expect(negotiation.bundleMids == ["0", "1"])
        #expect(negotiation.accepted.count == 2)

        let audio = try #require(negotiation.media(mid: "0"))
        #expect(audio.kind == .audio)
        #expect(audio.payloadType == 111)
        #expect(audio.clockRate == 48000)
        #expect(audio.codec?.channels == 2)
        #expect(audio.codec?.formatParameters == "minptime=10;useinbandfec=1")
        #expect(audio.codec?.rtcpFeedback == ["transport-cc"])
        #expect(audio.extensionID(for: SDPRelayParameters.HeaderExtension.audioLevel) == 1)
        #expect(audio.extensionID(for: SDPRelayParameters.HeaderExtension.absSendTime) == 2)
        #expect(audio.extensionID(for: SDPRelayParameters.HeaderExtension.transportWideCC) == 3)
        #expect(audio.extensionID(for: SDPRelayParameters.HeaderExtension.mid) == 4)
        #expect(audio.remoteSSRCs == [376_699_517])
        #expect(audio.remotePrimarySSRC == 376_699_517)
        #expect(audio.remoteCNAME == "kIqmRVxs0C2132ye")
        #expect(audio.remoteDirection == .sendrecv)
        #expect(audio.localDirection == .sendrecv)
        #expect(audio.remoteICEUfrag == "HHOg")
        #expect(audio.remoteICEPwd == "o8P3uzLkG2/QCIf7XOK8meF0")
        #expect(audio.remoteFingerprint?.algorithm == "sha-256")
        #expect(audio.remoteFingerprint?.value
            == "07:88:C6:EF:51:0C:57:44:A1:CF:D3:59:B1:E9:88:28:5F:E2:5D:78:C0:9A:14:E4:89:F1:BC:17:30:40:FD:E8")
        #expect(audio.remoteSetup == .actpass)
        #expect(audio.localSetup == .passive)
        #expect(audio.localStream?.ssrc == 1111)

        let video = try #require(negotiation.media(mid: "1"))
        #expect(video.payloadType == 96)
        #expect(video.clockRate == 90000)
        #expect(video.codec?.formatParameters == nil)
        #expect(video.headerExtensions.map(\.id) == [2, 3, 4])
        #expect(video.remoteSSRCs == [3_574_137_062, 1_852_307_589])
        #expect(video.remotePrimarySSRC == 3_574_137_062)  // 1852307589 is its RTX, which the answer drops
    }

    @Test("aiortc's offer gets Opus 96 and VP8 97 with only the feedback it offered")
    func aiortcAnswer() throws {
        let offer = try SessionDescription(parsing: Fixture.aiortc())
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        let all = lines(answer)
        let videoStart = try #require(all.firstIndex(of: "m=video 50000 UDP/TLS/RTP/SAVPF 97"))
        let audioLines = Array(all[7..<videoStart])
        let videoLines = Array(all[videoStart...])
        #expect(Array(all[0..<7]) == ["v=0", "o=- 42 1 IN IP4 203.0.113.5", "s=-", "t=0 0", "a=ice-lite",
                                      "a=group:BUNDLE 0 1", "a=msid-semantic:WMS parley"])
        #expect(audioLines == transportLines("m=audio 50000 UDP/TLS/RTP/SAVPF 96", mid: "0") + [
            "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=sendrecv",
            "a=msid:parley audio0",
            "a=rtcp-mux",
            "a=rtpmap:96 opus/48000/2",
            "a=ssrc:1111 cname:parley-relay",
        ])
        #expect(videoLines == transportLines("m=video 50000 UDP/TLS/RTP/SAVPF 97", mid: "1") + [
            "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=sendrecv",
            "a=msid:parley video0",
            "a=rtcp-mux",
            "a=rtpmap:97 VP8/90000",
            "a=rtcp-fb:97 nack",
            "a=rtcp-fb:97 nack pli",
            "a=rtcp-fb:97 goog-remb",
            "a=ssrc:2222 cname:parley-relay",
        ])

        let audio = try #require(answer.negotiation.media(mid: "0"))
        #expect(audio.payloadType == 96)
        #expect(audio.codec?.formatParameters == nil)
        #expect(audio.remoteSSRCs == [428_646_249])
        #expect(audio.remoteICEUfrag == "YkJn")
        #expect(audio.remoteICEPwd == "2uU7yPyO1KAgnOB3pqY6TO")
        #expect(audio.remoteFingerprints.count == 3)
        #expect(audio.remoteFingerprint?.value
            == "BF:58:77:6A:77:2D:4F:09:E2:41:AC:31:E6:B0:F6:B8:EB:37:49:64:49:2D:18:C6:27:87:C2:87:F8:45:9A:CC")
        let video = try #require(answer.negotiation.media(mid: "1"))
        #expect(video.payloadType == 97)
        #expect(video.headerExtensions == [SDPExtMap(id: 1, uri: SDPRelayParameters.HeaderExtension.mid),
                                           SDPExtMap(id: 3, uri: SDPRelayParameters.HeaderExtension.absSendTime)])
        #expect(video.remotePrimarySSRC == 2_052_986_180)
    }

    @Test("Directions are mirrored (RFC 3264 §6.1); the relay's stream is only announced when it sends",
          arguments: [(SDPDirection.sendrecv, SDPDirection.sendrecv), (.sendonly, .recvonly), (.recvonly, .sendonly),
                      (.inactive, .inactive)])
    func directions(offered: SDPDirection, answered: SDPDirection) throws {
        var offer = try SessionDescription(parsing: Fixture.aiortc())
        offer.media[0].attributes.removeAll { SDPDirection(rawValue: $0.name) != nil }
        offer.media[0].attributes.append(SDPAttribute(offered.rawValue))
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        let audio = try #require(answer.negotiation.media(mid: "0"))
        #expect(audio.localDirection == answered)
        #expect(answer.session.media[0].direction == answered)
        #expect(answer.session.media[0].ssrcs == (answered.sends ? [1111] : []))
        #expect(answer.session.media[0].msid == (answered.sends ? SDPMediaStreamID(streamID: "parley", trackID: "audio0") : nil))
    }

    @Test("Sections the relay cannot take get port 0, keep their mid, and leave BUNDLE")
    func rejections() throws {
        var text = try Fixture.chromium()
        text += "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=mid:2\r\na=sctp-port:5000\r\n"
        text += "m=audio 9 UDP/TLS/RTP/SAVPF 0 8\r\na=mid:3\r\na=rtcp-mux\r\na=rtpmap:0 PCMU/8000\r\n"
        text += "m=video 9 UDP/TLS/RTP/SAVPF 102\r\na=mid:4\r\na=rtcp-mux\r\na=rtpmap:102 H264/90000\r\n"
        text += "m=audio 0 UDP/TLS/RTP/SAVPF 111\r\na=mid:5\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\n"
        text += "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:6\r\na=rtpmap:111 opus/48000/2\r\n"
        text += "m=text 9 UDP/TLS/RTP/SAVPF 98\r\na=mid:7\r\n"
        text += "m=audio 9 RTP/AVP 111\r\na=mid:8\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\n"
        text = text.replacingOccurrences(of: "a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0 1 2 3 4 5 6 7 8")
        let answer = try SDPAnswerer.answer(offer: SessionDescription(parsing: text), relay: relay)
        #expect(answer.negotiation.bundleMids == ["0", "1"])
        #expect(answer.negotiation.media.map(\.rejection) == [
            nil, nil, .unsupportedMediaKind, .noSupportedCodec, .noSupportedCodec, .rejectedInOffer, .missingRTCPMux,
            .unsupportedMediaKind, .unsupportedProtocol,
        ])
        let sections = answer.session.media
        #expect(sections.map(\.port) == [50000, 50000, 0, 0, 0, 0, 0, 0, 0])
        #expect(sections.map(\.mid) == ["0", "1", "2", "3", "4", "5", "6", "7", "8"])
        #expect(answer.session.media[2].formats == ["webrtc-datachannel"])
        #expect(answer.session.media[2].proto == "UDP/DTLS/SCTP")
        #expect(lines(answer).contains("a=group:BUNDLE 0 1"))
        #expect(try SessionDescription(parsing: answer.sdp) == answer.session)
    }

    @Test("Extensions the relay does not support, and transport-cc without its extension, are left out")
    func extensionFiltering() throws {
        var limited = relay
        limited.supportedHeaderExtensions = [SDPRelayParameters.HeaderExtension.mid]
        let answer = try SDPAnswerer.answer(offer: SessionDescription(parsing: Fixture.chromium()), relay: limited)
        let video = try #require(answer.negotiation.media(mid: "1"))
        #expect(video.headerExtensions == [SDPExtMap(id: 4, uri: SDPRelayParameters.HeaderExtension.mid)])
        #expect(video.codec?.rtcpFeedback == ["goog-remb", "ccm fir", "nack", "nack pli"])
        #expect(!answer.sdp.contains("transport-cc"))
    }

    @Test("Offers the relay cannot answer at all throw")
    func answerErrors() throws {
        let chromium = try Fixture.chromium()
        func answer(_ text: String) throws -> SDPAnswer {
            try SDPAnswerer.answer(offer: SessionDescription(parsing: text), relay: relay)
        }
        // setup:passive makes the relay the DTLS client (StackOfferTests); active keeps it passive.
        #expect(try answer(chromium.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active"))
            .negotiation.media[0].remoteSetup == .active)
        // An ICE restart keeps the leg's DTLS role where the offer leaves it open (RFC 8842 §5.5),
        // but an offer that says active still gets passive.
        var restart = relay
        restart.preferredSetup = .active
        let open = try SDPAnswerer.answer(offer: SessionDescription(parsing: chromium), relay: restart)
        #expect(open.negotiation.media[0].localSetup == .active && open.sdp.contains("a=setup:active"))
        let decided = try SDPAnswerer.answer(
            offer: SessionDescription(parsing: chromium.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active")), relay: restart)
        #expect(decided.negotiation.media[0].localSetup == .passive)
        #expect(throws: SDPAnswerError.missingFingerprint(mid: "0")) {
            try answer(chromium.split(separator: "\r\n").filter { !$0.hasPrefix("a=fingerprint") }.joined(separator: "\r\n"))
        }
        #expect(throws: SDPAnswerError.missingICECredentials(mid: "0")) {
            try answer(chromium.split(separator: "\r\n").filter { !$0.hasPrefix("a=ice-pwd") }.joined(separator: "\r\n"))
        }
        #expect(throws: SDPAnswerError.noAcceptableMedia) {
            try answer("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:0\r\n")
        }
    }

    @Test("Session-level ICE credentials and fingerprint are used when sections have none")
    func sessionLevelCredentials() throws {
        let text = """
            v=0
            o=- 7 7 IN IP6 ::1
            s=-
            t=0 0
            a=ice-ufrag:sess
            a=ice-pwd:sessionlevelpassword00
            a=fingerprint:SHA-256 ab:cd
            m=audio 9 UDP/TLS/RTP/SAVPF 109
            a=mid:a
            a=rtcp-mux
            a=rtpmap:109 OPUS/48000/2
            """
        var ipv6 = relay
        ipv6.address = "2001:db8::5"
        let answer = try SDPAnswerer.answer(offer: SessionDescription(parsing: text), relay: ipv6)
        let audio = try #require(answer.negotiation.media(mid: "a"))
        #expect(audio.remoteICEUfrag == "sess")
        #expect(audio.remoteFingerprint == SDPFingerprint(algorithm: "sha-256", value: "AB:CD"))
        #expect(audio.remoteSetup == nil)
        #expect(audio.payloadType == 109)
        #expect(answer.negotiation.bundleMids.isEmpty)  // the offer had no BUNDLE group
        #expect(lines(answer).contains("c=IN IP6 2001:db8::5"))
        #expect(lines(answer).contains("o=- 42 1 IN IP6 2001:db8::5"))
        #expect(!lines(answer).contains { $0.hasPrefix("a=group") })
        #expect(lines(answer).contains("a=rtpmap:109 OPUS/48000/2"))
    }
}

import Testing
@testable import ParleySDP

@Suite("SDP that must be rejected, and SDP that must be tolerated")
struct SDPParseErrorTests {
    static let minimal = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"

    private func problem(_ text: String) -> SDPParseError? {
        do {
            _ = try SessionDescription(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test("Malformed descriptions name the problem and the line", arguments: [
        ("", SDPParseError.Problem.empty, 0),
        ("\r\n\r\n", .empty, 0),
        ("o=- 1 1 IN IP4 0.0.0.0\r\nv=0\r\n", .missingVersion, 1),
        ("v=1\r\n", .unsupportedVersion, 1),
        ("v=0\r\ns=-\r\n", .malformedOrigin, 0),
        ("v=0\r\no=- 1 1 IN IP4\r\n", .malformedOrigin, 2),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n", .missingSessionName, 0),
        (minimal + "this is not sdp\r\n", .malformedLine, 5),
        (minimal + "A=foo\r\n", .malformedLine, 5),
        (minimal + "a\r\n", .malformedLine, 5),
        (minimal + "c=IN IP4\r\n", .malformedConnection, 5),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=now\r\n", .malformedTiming, 4),
        (minimal + "m=audio\r\n", .malformedMedia, 5),
        (minimal + "m=audio 9 UDP/TLS/RTP/SAVPF\r\n", .malformedMedia, 5),
        (minimal + "m=audio 70000 UDP/TLS/RTP/SAVPF 111\r\n", .malformedMedia, 5),
        (minimal + "m=audio x UDP/TLS/RTP/SAVPF 111\r\n", .malformedMedia, 5),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU\r\n", .malformedAttribute("rtpmap"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=rtpmap:300 PCMU/8000\r\n", .malformedAttribute("rtpmap"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=extmap:x urn:a\r\n", .malformedAttribute("extmap"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=extmap:1/sideways urn:a\r\n", .malformedAttribute("extmap"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=ssrc:abc cname:x\r\n", .malformedAttribute("ssrc"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=ssrc-group:FID 1 two\r\n", .malformedAttribute("ssrc-group"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=fingerprint:sha-256 ZZ:00\r\n", .malformedAttribute("fingerprint"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=setup:sideways\r\n", .malformedAttribute("setup"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp 1 1.2.3.4 9 host\r\n", .malformedAttribute("candidate"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=rtcp-fb:96\r\n", .malformedAttribute("rtcp-fb"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=mid:\r\n", .malformedAttribute("mid"), 6),
        (minimal + "m=audio 9 RTP/AVP 0\r\na=mid:0\r\na=mid:1\r\n", .duplicate("a=mid"), 7),
        (minimal + "v=0\r\n", .duplicate("v="), 5),
    ])
    func malformed(text: String, expected: SDPParseError.Problem, line: Int) {
        let error = problem(text)
        #expect(error?.problem == expected)
        #expect(error?.line == line)
    }

    @Test("Errors read clearly")
    func message() {
        let error = problem(Self.minimal + "m=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU\r\n")
        #expect(error?.description == "SDP line 6: malformed a=rtpmap: a=rtpmap:0 PCMU")
    }

    @Test("LF-only line ends, blank lines, trailing spaces, unknown lines and attributes are tolerated")
    func tolerant() throws {
        let text = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\n\nt=0 0  \nx=unknown letter\na=x-custom:anything at all\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\nb=AS:64\na=mid:0\na=weird-flag\na=rtpmap:111 opus/48000/2\n"
        let session = try SessionDescription(parsing: text)
        #expect(session.attributes == [SDPAttribute("x-custom", "anything at all")])
        #expect(session.media.count == 1)
        #expect(session.media[0].otherLines == [SDPLine(type: "b", value: "AS:64")])
        #expect(session.media[0].has("weird-flag"))
        #expect(session.media[0].rtpMap(for: 111)?.encodingName == "opus")
        #expect(try SessionDescription(parsing: session.text) == session)
    }

    @Test("Both fixtures parse identically with LF line ends")
    func fixturesWithLF() throws {
        for text in [try Fixture.chromium(), try Fixture.aiortc()] {
            let crlf = try SessionDescription(parsing: text)
            let lf = try SessionDescription(parsing: text.replacingOccurrences(of: "\r\n", with: "\n"))
            #expect(crlf == lf)
        }
    }

    @Test("Attribute grammar odds and ends")
    func attributeValues() {
        #expect(SDPExtMap("2/sendonly urn:x attr") == SDPExtMap(id: 2, uri: "urn:x", direction: .sendonly, extensionAttributes: "attr"))
        #expect(SDPRTCPFeedback("* nack") == SDPRTCPFeedback(payloadType: nil, type: "nack"))
        #expect(SDPRTCPFeedback("* nack")?.value == "* nack")
        #expect(SDPCandidate("1 1 UDP 5 10.0.0.1 9 typ srflx raddr 0.0.0.0 rport 0")?.relatedPort == 0)
        #expect(SDPCandidate("1 1 udp 5 10.0.0.1 9 typ host generation") == nil)
        #expect(SDPSSRCAttribute("5 cname:a:b") == SDPSSRCAttribute(ssrc: 5, attribute: "cname", value: "a:b"))
        #expect(SDPFormatParameters("111")?.parameters == "")
        #expect(SDPDirection.allCases.map(\.reversed) == [.sendrecv, .recvonly, .sendonly, .inactive])
    }
}

@Suite("SDP fuzzing")
struct SDPFuzzTests {
    @Test("Mutated fixtures never crash the parser or the answerer")
    func fuzz() throws {
        let seeds = [try Fixture.chromium(), try Fixture.aiortc()].map { Array($0.utf8) }
        let relay = SDPRelayParameters(iceUfrag: "prly", icePwd: "relaypasswordrelaypassword",
                                       fingerprintSHA256: "AA:BB", address: "127.0.0.1", port: 50000)
        let alphabet = Array("0123456789 :/=-*\r\nabmtvosc".utf8)
        var state: UInt64 = 0x5344_5000
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var parsed = 0
        for round in 0..<2_000 {
            var bytes = seeds[round % 2]
            for _ in 0..<(1 + next() % 8) {
                let index = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[index] = alphabet[next() % alphabet.count]
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet[next() % alphabet.count], at: index)
                }
            }
            guard let offer = try? SessionDescription(parsing: String(decoding: bytes, as: UTF8.self)) else { continue }
            parsed += 1
            _ = offer.text
            _ = try? SDPAnswerer.answer(offer: offer, relay: relay)
        }
        #expect(parsed > 0)  // some mutations land in free text and must still parse
    }
}

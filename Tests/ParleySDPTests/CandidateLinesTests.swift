import Testing
@testable import ParleySDP

/// The relay's candidate lines: UDP host candidates, and with a TCP port a passive TCP one after
/// each (RFC 6544 §4.5), lower in priority (§4.2).
@Suite("Candidate lines: UDP, then TCP passive")
struct CandidateLinesTests {
    func relay(tcpPort: Int?, udp: Bool = true) -> SDPRelayParameters {
        SDPRelayParameters(iceUfrag: "prly", icePwd: "relaypasswordrelaypassword", fingerprintSHA256: AnswerTests.fingerprint,
                           address: "203.0.113.5", otherAddresses: ["2001:db8::5"], port: 50000, tcpPort: tcpPort,
                           udpCandidates: udp)
    }

    @Test("per address a UDP candidate, then a passive TCP one on the TCP port, every TCP below every UDP")
    func both() {
        let lines = SDPAnswerer.candidates(relay(tcpPort: 443)).map(\.value)
        #expect(lines == [
            "1 1 udp 2130706431 203.0.113.5 50000 typ host",
            // type preference 90, local preference 2^13 × 4 (passive) + 8191, component 1
            "3 1 tcp 1520435199 203.0.113.5 443 typ host tcptype passive",
            "2 1 udp 2130706175 2001:db8::5 50000 typ host",
            "4 1 tcp 1520434943 2001:db8::5 443 typ host tcptype passive",
        ])
    }

    @Test("no TCP port: the UDP candidates alone, as before; UDP left out: TCP alone")
    func eitherAlone() {
        #expect(SDPAnswerer.candidates(relay(tcpPort: nil)).map(\.transport) == ["udp", "udp"])
        #expect(SDPAnswerer.candidates(relay(tcpPort: 50000, udp: false)).map(\.value) == [
            "3 1 tcp 1520435199 203.0.113.5 50000 typ host tcptype passive",
            "4 1 tcp 1520434943 2001:db8::5 50000 typ host tcptype passive",
        ])
    }

    @Test("the answer's accepted sections carry them before end-of-candidates")
    func inTheAnswer() throws {
        let offer = try SessionDescription(parsing: Fixture.chromium())
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay(tcpPort: 50000))
        let audio = answer.session.media[0].attributes.map { "\($0.name)\($0.value.map { ":" + $0 } ?? "")" }
        let end = try #require(audio.firstIndex(of: "end-of-candidates"))
        #expect(audio[..<end].filter { $0.hasPrefix("candidate:") }.count == 4)
        #expect(audio[..<end].last == "candidate:4 1 tcp 1520434943 2001:db8::5 50000 typ host tcptype passive")
    }
}

import Foundation
import Testing
@testable import ParleySDP

/// RTX (RFC 4588) in the relay's answer: kept for VP8 with the offer's own payload types, the
/// relay's RTX stream paired with its video stream in `a=ssrc-group:FID`.
@Suite("Answering with RTX for VP8")
struct RTXAnswerTests {
    func relay(retransmissions: Bool = true) -> SDPRelayParameters {
        var relay = SDPRelayParameters(
            iceUfrag: "prly", icePwd: "relaypasswordrelaypassword", fingerprintSHA256: AnswerTests.fingerprint,
            address: "203.0.113.5", port: 50000,
            streams: ["0": SDPRelayStream(ssrc: 1111, cname: "parley-relay", trackID: "audio0", rtxSSRC: 1112),
                      "1": SDPRelayStream(ssrc: 2222, cname: "parley-relay", trackID: "video0", rtxSSRC: 2223)],
            sessionID: 42, sessionVersion: 1)
        relay.retransmissions = retransmissions
        return relay
    }

    /// The answer's video section as lines, from its m= line to the end.
    func videoLines(_ answer: SDPAnswer) -> [String] {
        let lines = answer.sdp.split(separator: "\r\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("m=video") }) else { return [] }
        return Array(lines[start...])
    }

    @Test("each real client's VP8 keeps its own rtx payload type, and the relay announces an FID pair",
          arguments: [("chromium-156-offer.sdp", UInt8(96), UInt8(97)), ("libwebrtc-ios-offer.sdp", 100, 101),
                      ("aiortc-1.16-offer.sdp", 97, 98)])
    func keptPerClient(fixture: String, vp8: UInt8, rtx: UInt8) throws {
        let offer = try SessionDescription(parsing: Fixture.text(fixture))
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay())
        let video = try #require(answer.negotiation.media(mid: "1")?.codec)
        #expect(video.payloadType == vp8)
        #expect(video.rtxPayloadType == rtx)
        let lines = videoLines(answer)
        #expect(lines.first == "m=video 50000 UDP/TLS/RTP/SAVPF \(vp8) \(rtx)")
        #expect(lines.contains("a=rtpmap:\(rtx) rtx/90000"))
        #expect(lines.contains("a=fmtp:\(rtx) apt=\(vp8)"))
        #expect(lines.contains("a=ssrc-group:FID 2222 2223"))
        #expect(lines.contains("a=ssrc:2222 cname:parley-relay"))
        #expect(lines.contains("a=ssrc:2223 cname:parley-relay"))
        // No other rtx format, and none in audio.
        #expect(lines.filter { $0.hasSuffix(" rtx/90000") }.count == 1)
        #expect(answer.negotiation.media(mid: "0")?.codec?.rtxPayloadType == nil)
        #expect(!answer.sdp.contains("a=ssrc:1112"))

        // The answer reads back as the same agreement.
        let reparsed = try SessionDescription(parsing: answer.sdp)
        let section = try #require(reparsed.media.first { $0.mid == "1" })
        #expect(section.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [2222, 2223])])
        #expect(section.formatParameters(for: rtx)?["apt"] == String(vp8))
    }

    @Test("without the relay's consent, or without NACK, the answer has no rtx")
    func leftOut() throws {
        let offer = try SessionDescription(parsing: Fixture.chromium())
        let plain = try SDPAnswerer.answer(offer: offer, relay: relay(retransmissions: false))
        #expect(plain.negotiation.media(mid: "1")?.codec?.rtxPayloadType == nil)
        #expect(!plain.sdp.contains("rtx/90000"))
        #expect(!plain.sdp.contains("ssrc-group"))
        #expect(videoLines(plain).first == "m=video 50000 UDP/TLS/RTP/SAVPF 96")

        // RTX answers NACKs; a VP8 offered without `nack` gets none.
        let noNACK = try Fixture.chromium().split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { $0 != "a=rtcp-fb:96 nack" }.joined(separator: "\r\n")
        let answer = try SDPAnswerer.answer(offer: SessionDescription(parsing: noNACK), relay: relay())
        #expect(answer.negotiation.media(mid: "1")?.codec?.rtxPayloadType == nil)
    }

    @Test("an rtx format for another codec, or with no apt, is not taken for VP8")
    func wrongAssociation() throws {
        // iOS offers rtx 97 for H264 96 before rtx 101 for VP8 100.
        let ios = try SessionDescription(parsing: Fixture.text("libwebrtc-ios-offer.sdp"))
        #expect(SDPAnswerer.rtxPayloadType(try #require(ios.media.first { $0.mid == "1" }), associatedWith: 100) == 101)
        let offer = try Fixture.chromium().replacingOccurrences(of: "a=fmtp:97 apt=96", with: "a=fmtp:97 apt=45")
        let section = try #require(try SessionDescription(parsing: offer).media.first { $0.mid == "1" })
        #expect(SDPAnswerer.rtxPayloadType(section, associatedWith: 96) == nil)
    }
}

import Testing
import ParleySRTP

@Suite("SRTP known answers (RFC 3711, RFC 7714): bytes made independently, see SRTPVectors")
struct SRTPKnownAnswerTests {
    @Test("protect RTP gives the expected SRTP packet", arguments: SRTPVectors.cases)
    func protectRTP(_ vector: SRTPVectors.Case) throws {
        var session = try SRTPSession(profile: vector.profile, key: vector.key, direction: .outbound)
        let (status, out) = Packet.run(Packet.protectRTP, &session, SRTPVectors.rtp)
        #expect(status == .ok)
        #expect(out == vector.srtp)
        #expect(out.count == SRTPVectors.rtp.count + vector.profile.rtpOverhead)
    }

    @Test("protect RTCP gives the expected SRTCP packet", arguments: SRTPVectors.cases)
    func protectRTCP(_ vector: SRTPVectors.Case) throws {
        var session = try SRTPSession(profile: vector.profile, key: vector.key, direction: .outbound)
        let (status, out) = Packet.run(Packet.protectRTCP, &session, SRTPVectors.rtcp)
        #expect(status == .ok)
        #expect(out == vector.srtcp)
        #expect(out.count == SRTPVectors.rtcp.count + vector.profile.rtcpOverhead)
    }

    @Test("unprotect recovers the plain packets", arguments: SRTPVectors.cases)
    func unprotect(_ vector: SRTPVectors.Case) throws {
        var session = try SRTPSession(profile: vector.profile, key: vector.key, direction: .inbound)
        let (rtpStatus, rtp) = Packet.run(Packet.unprotectRTP, &session, vector.srtp, spare: 0)
        #expect(rtpStatus == .ok)
        #expect(rtp == SRTPVectors.rtp)
        let (rtcpStatus, rtcp) = Packet.run(Packet.unprotectRTCP, &session, vector.srtcp, spare: 0)
        #expect(rtcpStatus == .ok)
        #expect(rtcp == SRTPVectors.rtcp)
    }
}

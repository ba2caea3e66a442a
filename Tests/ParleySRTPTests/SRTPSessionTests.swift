import Testing
import ParleySRTP

@Suite("SRTP sessions: round trips, forgery, replay, malformed input")
struct SRTPSessionTests {
    static func key(_ profile: SRTPProfile, seed: UInt8) -> SRTPMasterKey {
        SRTPMasterKey(
            key: (0..<profile.masterKeyLength).map { UInt8(truncatingIfNeeded: Int(seed) &* 7 &+ $0) },
            salt: (0..<profile.masterSaltLength).map { UInt8(truncatingIfNeeded: Int(seed) &+ 0x51 &+ $0) })
    }

    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1122_3344, payload: Int = 160) -> [UInt8] {
        var packet: [UInt8] = [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x03, 0xC0]
        packet += [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
        packet += (0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        return packet
    }

    @Test("RTP and RTCP round trip on many packets and SSRCs", arguments: SRTPProfile.allCases)
    func roundTrip(_ profile: SRTPProfile) throws {
        var sender = try SRTPSession(profile: profile, key: Self.key(profile, seed: 3), direction: .outbound)
        var receiver = try SRTPSession(profile: profile, key: Self.key(profile, seed: 3), direction: .inbound)
        for ssrc: UInt32 in [1, 0xDEAD_BEEF] {
            for sequence: UInt16 in [65530, 65531, 65535, 0, 1, 2] {  // crosses a rollover (ROC 0 → 1)
                let plain = Self.rtp(sequence: sequence, ssrc: ssrc, payload: 1 + Int(sequence % 300))
                let (protectStatus, protected) = Packet.run(Packet.protectRTP, &sender, plain)
                #expect(protectStatus == .ok)
                #expect(protected.count == plain.count + profile.rtpOverhead)
                #expect(protected != plain + Array(protected.suffix(profile.rtpOverhead)))  // payload is encrypted
                let (status, back) = Packet.run(Packet.unprotectRTP, &receiver, protected, spare: 0)
                #expect(status == .ok)
                #expect(back == plain)
            }
            let plainRTCP = SRTPVectors.rtcp
            for _ in 0..<3 {
                let (protectStatus, protected) = Packet.run(Packet.protectRTCP, &sender, plainRTCP)
                #expect(protectStatus == .ok)
                let (status, back) = Packet.run(Packet.unprotectRTCP, &receiver, protected, spare: 0)
                #expect(status == .ok)
                #expect(back == plainRTCP)
            }
        }
    }

    @Test("a flipped bit in the tag or payload is an auth failure", arguments: SRTPProfile.allCases)
    func tampered(_ profile: SRTPProfile) throws {
        var sender = try SRTPSession(profile: profile, key: Self.key(profile, seed: 9), direction: .outbound)
        var receiver = try SRTPSession(profile: profile, key: Self.key(profile, seed: 9), direction: .inbound)
        for (sequence, flip) in [(UInt16(1), -1), (2, 20)] {  // last tag byte, then a payload byte
            var (_, packet) = Packet.run(Packet.protectRTP, &sender, Self.rtp(sequence: sequence))
            packet[flip < 0 ? packet.count - 1 : flip] ^= 0x01
            #expect(Packet.run(Packet.unprotectRTP, &receiver, packet, spare: 0).0 == .authFail)
        }
        var (_, rtcp) = Packet.run(Packet.protectRTCP, &sender, SRTPVectors.rtcp)
        rtcp[10] ^= 0x80
        #expect(Packet.run(Packet.unprotectRTCP, &receiver, rtcp, spare: 0).0 == .authFail)
        // A different key fails too.
        var stranger = try SRTPSession(profile: profile, key: Self.key(profile, seed: 10), direction: .inbound)
        let (_, good) = Packet.run(Packet.protectRTP, &sender, Self.rtp(sequence: 3))
        #expect(Packet.run(Packet.unprotectRTP, &stranger, good, spare: 0).0 == .authFail)
    }

    @Test("a replayed packet is rejected; one older than the 128-packet window too", arguments: SRTPProfile.allCases)
    func replay(_ profile: SRTPProfile) throws {
        var sender = try SRTPSession(profile: profile, key: Self.key(profile, seed: 5), direction: .outbound)
        var receiver = try SRTPSession(profile: profile, key: Self.key(profile, seed: 5), direction: .inbound)
        let (_, first) = Packet.run(Packet.protectRTP, &sender, Self.rtp(sequence: 10))
        #expect(Packet.run(Packet.unprotectRTP, &receiver, first, spare: 0).0 == .ok)
        #expect(Packet.run(Packet.unprotectRTP, &receiver, first, spare: 0).0 == .replayFail)
        // Move the window 200 packets on; the first packet is now too old.
        let (_, later) = Packet.run(Packet.protectRTP, &sender, Self.rtp(sequence: 210))
        #expect(Packet.run(Packet.unprotectRTP, &receiver, later, spare: 0).0 == .ok)
        #expect(Packet.run(Packet.unprotectRTP, &receiver, first, spare: 0).0 == .replayOld)
        // Out of order inside the window is fine.
        let (_, late) = Packet.run(Packet.protectRTP, &sender, Self.rtp(sequence: 150))
        #expect(Packet.run(Packet.unprotectRTP, &receiver, late, spare: 0).0 == .ok)
        // SRTCP has its own replay list (RFC 3711 §3.4).
        let (_, rtcp) = Packet.run(Packet.protectRTCP, &sender, SRTPVectors.rtcp)
        #expect(Packet.run(Packet.unprotectRTCP, &receiver, rtcp, spare: 0).0 == .ok)
        #expect(Packet.run(Packet.unprotectRTCP, &receiver, rtcp, spare: 0).0 == .replayFail)
        // The sender refuses to reuse a sequence number (allow_repeat_tx off).
        #expect(Packet.run(Packet.protectRTP, &sender, Self.rtp(sequence: 210)).0 == .replayFail)
    }

    @Test("garbage, short packets, no room for the tag and the wrong direction fail cleanly",
          arguments: SRTPProfile.allCases)
    func malformed(_ profile: SRTPProfile) throws {
        var sender = try SRTPSession(profile: profile, key: Self.key(profile, seed: 1), direction: .outbound)
        var receiver = try SRTPSession(profile: profile, key: Self.key(profile, seed: 1), direction: .inbound)
        for length in [0, 1, 11, 12, 20, 27, 28, 40, 200, 1500] {
            var generator = SystemRandomNumberGenerator()
            var garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if length > 0 { garbage[0] = 0x80 | (garbage[0] & 0x3F) }  // looks like RTP v2
            #expect(Packet.run(Packet.unprotectRTP, &receiver, garbage, spare: 0).0 != .ok)
            #expect(Packet.run(Packet.unprotectRTCP, &receiver, garbage, spare: 0).0 != .ok)
        }
        #expect(Packet.run(Packet.protectRTP, &sender, Array(SRTPVectors.rtp.prefix(11))).0 == .badParameter)
        #expect(Packet.run(Packet.protectRTCP, &sender, Array(SRTPVectors.rtcp.prefix(7))).0 == .badParameter)
        #expect(Packet.run(Packet.protectRTP, &sender, SRTPVectors.rtp, spare: profile.rtpOverhead - 1).0
            == .bufferTooSmall)
        #expect(Packet.run(Packet.protectRTCP, &sender, SRTPVectors.rtcp, spare: profile.rtcpOverhead - 1).0
            == .bufferTooSmall)
        #expect(Packet.run(Packet.protectRTP, &sender, SRTPVectors.rtp, spare: profile.rtpOverhead).0 == .ok)
        #expect(Packet.run(Packet.protectRTP, &receiver, Self.rtp(sequence: 1)).0 == .badParameter)
        #expect(Packet.run(Packet.unprotectRTP, &sender, Self.rtp(sequence: 1)).0 == .badParameter)
        // A length past the buffer is refused before libsrtp sees it.
        var buffer = [UInt8](repeating: 0x80, count: 40)
        var length = 41
        let status = buffer.withUnsafeMutableBytes { receiver.unprotectRTP($0, length: &length) }
        #expect(status == .badParameter)
    }

    @Test("keys of the wrong length are refused")
    func badKeys() {
        #expect(throws: SRTPError.badKeyLength(profile: .aeadAES128GCM, keyLength: 16, saltLength: 14)) {
            _ = try SRTPSession(profile: .aeadAES128GCM, key: Self.key(.aes128CMHMACSHA1_80, seed: 0),
                                direction: .inbound)
        }
    }
}

import ParleySRTP

/// The two SRTP sessions of a connected call (RFC 5764 §4.2: client keys out, server keys in),
/// with one reusable send buffer so protecting a packet allocates nothing.
final class SRTPTransport {
    /// Why a packet was not delivered.
    struct Drops: Sendable, Equatable {
        var protectFailures = 0
        var unprotectFailures = 0
        /// Of those, packets already seen (replay window), not forgeries.
        var replays = 0
    }

    let profile: SRTPProfile
    private var inbound: SRTPSession
    private var outbound: SRTPSession
    private(set) var drops = Drops()
    /// Packets are built here, then protected in place.
    var sendBuffer: [UInt8]

    /// `resends`: packets may be protected again with the same sequence number (NACKs answered
    /// with the packet itself).
    init(profile: SRTPProfile, inboundKey: SRTPMasterKey, outboundKey: SRTPMasterKey, resends: Bool = false) throws(SRTPError) {
        self.profile = profile
        inbound = try SRTPSession(profile: profile, key: inboundKey, direction: .inbound)
        outbound = try SRTPSession(profile: profile, key: outboundKey, direction: .outbound, allowsRepeatTransmission: resends)
        sendBuffer = []
        sendBuffer.reserveCapacity(2_048)
    }

    /// Protects `sendBuffer` (an RTP packet, or RTCP when `rtcp`) and hands the result to `link`.
    func protectAndWrite(rtcp: Bool, to link: MediaLink) {
        var length = sendBuffer.count
        let room = rtcp ? profile.rtcpOverhead : profile.rtpOverhead
        for _ in 0..<room { sendBuffer.append(0) }
        let status = sendBuffer.withUnsafeMutableBytes { bytes in
            rtcp ? outbound.protectRTCP(bytes, length: &length) : outbound.protectRTP(bytes, length: &length)
        }
        guard status == .ok else { drops.protectFailures += 1; return }
        sendBuffer.withUnsafeBytes { link.write(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    /// Copies `packet` into the send buffer, then protects and writes it.
    func send(_ packet: [UInt8], rtcp: Bool, to link: MediaLink) {
        sendBuffer.removeAll(keepingCapacity: true)
        sendBuffer.append(contentsOf: packet)
        protectAndWrite(rtcp: rtcp, to: link)
    }

    /// Verifies and decrypts `bytes` in place; returns the plaintext length, or nil (counted).
    func unprotect(_ bytes: inout [UInt8], rtcp: Bool) -> Int? {
        var length = bytes.count
        let status = bytes.withUnsafeMutableBytes { buffer in
            rtcp ? inbound.unprotectRTCP(buffer, length: &length) : inbound.unprotectRTP(buffer, length: &length)
        }
        guard status == .ok else {
            drops.unprotectFailures += 1
            if status == .replayFail || status == .replayOld { drops.replays += 1 }
            return nil
        }
        return length
    }
}

import NIOCore
import ParleyRTP

extension RelayEngine {
    /// Generic NACKs (RFC 4585 §6.2.1) in a decrypted RTCP compound from `leg`'s client, about the
    /// video the relay sends it: every packet named that `leg`'s ``RetransmissionHistory`` still
    /// holds goes out again at once, as it was. The compound is then forwarded as before, so the
    /// far sender still hears of the loss (and resends what the relay never got).
    func answerNACKs(in compound: UnsafeRawBufferPointer, from leg: RelayLeg) {
        guard let history = leg.history, let video = leg.media.video, Self.containsNACK(compound) else { return }
        guard case .success(let packets) = RTCPPacket.parseCompound(compound) else { return }
        for case .genericNACK(let nack) in packets where nack.mediaSSRC == video.localSSRC {
            for sequence in nack.lostSequenceNumbers {
                guard let packet = history.packet(sequence) else { continue }
                guard history.admitResend(sequence) else { drop(.resendLimit); continue }
                resend(packet, to: leg)
            }
        }
        flushIfNeeded()
    }

    /// Protects a copy of `packet` in ``scratch`` (the outbound session allows the repeat: the
    /// same plaintext under the same index, so the same ciphertext) and sends it to `leg`.
    private func resend(_ packet: UnsafeRawBufferPointer, to leg: RelayLeg) {
        guard leg.canReceiveMedia, let address = leg.sendAddress, let srtp = leg.srtp,
              packet.count + srtp.profile.rtpOverhead <= scratch.count else { return }
        scratch.copyMemory(from: packet)
        var length = packet.count
        guard srtp.outbound.protectRTP(scratch, length: &length) == .ok else { return drop(.protectFailed) }
        leg.packetsOut &+= 1
        leg.bytesOut &+= UInt64(length)
        leg.retransmitted &+= 1
        counters.retransmitted &+= 1
        send(UnsafeRawBufferPointer(rebasing: scratch[0..<length]), to: address)
    }

    /// Whether a compound holds a transport-layer feedback packet with FMT 1 (a NACK), by its
    /// headers alone, so the common compound (reports, PLI) is never parsed here.
    static func containsNACK(_ compound: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 4 <= compound.count {
            if compound[offset + 1] == RTCPPacketType.transportFeedback, compound[offset] & 0x1F == RTCPFeedbackFormat.genericNACK {
                return true
            }
            offset += ((Int(compound[offset + 2]) << 8 | Int(compound[offset + 3])) + 1) * 4
        }
        return false
    }
}

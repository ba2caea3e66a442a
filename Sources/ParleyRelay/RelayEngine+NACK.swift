import NIOCore
import ParleyRTP

extension RelayEngine {
    /// Generic NACKs (RFC 4585 §6.2.1) in a decrypted RTCP compound from `leg`'s client, about the
    /// video the relay sends it: every packet named that `leg`'s ``RetransmissionHistory`` still
    /// holds goes out again at once, as it was, and leaves the NACK (``RTCPNACKPruning``); what the
    /// relay does not hold (it never got it, or it is too old) stays in it for the far sender.
    /// Returns the compound's new length: 0 when nothing is left to forward.
    func answerNACKs(in compound: UnsafeMutableRawBufferPointer, from leg: RelayLeg) -> Int {
        guard let history = leg.history, let video = leg.media.video, Self.containsNACK(UnsafeRawBufferPointer(compound)),
              case .success(let packets) = RTCPPacket.parseCompound(UnsafeRawBufferPointer(compound))
        else { return compound.count }
        for case .genericNACK(let nack) in packets where nack.mediaSSRC == video.localSSRC {
            for sequence in nack.lostSequenceNumbers {
                guard let packet = history.packet(sequence) else { continue }
                guard history.admitResend(sequence) else { drop(.resendLimit); continue }
                resend(packet, to: leg)
            }
        }
        flushIfNeeded()
        return RTCPNACKPruning.prune(compound, length: compound.count, mediaSSRC: video.localSSRC) { history.packet($0) != nil }
    }

    /// Protects a copy of `packet` in ``scratch`` and sends it to `leg`: as RTX (RFC 4588 §4, on
    /// the relay's RTX stream to `leg`, under its next RTX sequence number) when `leg` negotiated
    /// it, else as it was (the outbound session allows the repeat: the same plaintext under the
    /// same index, so the same ciphertext).
    private func resend(_ packet: UnsafeRawBufferPointer, to leg: RelayLeg) {
        guard leg.canReceiveMedia, let address = leg.sendAddress, let srtp = leg.srtp,
              packet.count + RTPRetransmission.osnSize + srtp.profile.rtpOverhead <= scratch.count else { return }
        var length = packet.count
        let lookup = leg.mediaLookup
        if let payloadType = lookup.videoRTXPayloadType, let ssrc = lookup.videoRTXSSRC,
           case .success(let header) = RTPHeader.parse(packet),
           let wrapped = RTPRetransmission.wrap(packet, header: header, into: scratch, payloadType: payloadType,
                                                sequenceNumber: leg.rtxSequence, ssrc: ssrc) {
            leg.rtxSequence &+= 1
            length = wrapped
            leg.retransmittedAsRTX &+= 1
            counters.retransmittedAsRTX &+= 1
        } else {
            scratch.copyMemory(from: packet)
        }
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

import ParleyRTP

extension RelayEngine {
    /// A decrypted video RTX packet (RFC 4588 §4) from `leg`'s client, answering a NACK the relay
    /// passed on to it: to a receiver that negotiated RTX it goes as RTX (its payload type, the
    /// relay's RTX SSRC and sequence), to one that did not as the original packet, which is then
    /// also kept for that receiver's NACKs. In place in `slot`, like any media; allocates nothing.
    func forwardRTX(_ slot: UnsafeMutableRawBufferPointer, packet: UnsafeMutableRawBufferPointer, header: RTPHeader,
                    from leg: RelayLeg) {
        guard let target = leg.target else { return drop(.noTarget) }
        // The plan is used in place (see handleSRTP): no copy of its tables per packet.
        guard let outcome = leg.plan?.rewriteRTX(packet, header: header, rtxSequence: &target.rtxSequence) else {
            return drop(.noTarget)
        }
        switch outcome {
        case .retransmission(let length):
            counters.rtxForwarded &+= 1
            forward(slot, length: length, to: target, isRTCP: false)
        case .unwrapped(let length):
            counters.rtxUnwrapped &+= 1
            let original = UnsafeRawBufferPointer(rebasing: slot[0..<length])
            if target.canReceiveMedia, let history = target.history, case .success(let restored) = RTPHeader.parse(original) {
                history.store(original, sequence: restored.sequenceNumber)
            }
            forward(slot, length: length, to: target, isRTCP: false)
        case .drop(let reason):
            drop(reason)
        }
    }
}

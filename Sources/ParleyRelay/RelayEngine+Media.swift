import NIOCore
import ParleyRTP
import ParleySRTP

extension RelayEngine {
    /// SRTP or SRTCP (RFC 3711; first byte 128–191, RFC 7983 §7; RTCP by its second byte,
    /// RFC 5761 §4): unprotect with the sending leg's inbound session, rewrite for the target
    /// (``ForwardingPlan``), protect with the target's outbound session, queue for its send
    /// address. Works in place in `slot` (the datagram is `slot[0..<length]`); allocates nothing.
    func handleSRTP(_ slot: UnsafeMutableRawBufferPointer, length received: Int, from peer: PeerAddress, isRTCP: Bool) {
        guard let leg = legsByAddress[peer] else { return drop(.unknownSource) }
        guard leg.state == .connected, let srtp = leg.srtp else { return drop(.notConnected) }
        let now = NIODeadline.now()
        leg.lastActivity = now
        // Tests only: lost on the way in, before SRTP saw it (the RTP header is in the clear, RFC 3711 §3.1).
        if configuration.testVideoLossInbound > 0, !isRTCP, received > 1,
           leg.mediaLookup.kind(ofPayloadType: slot[1]) == .video {
            leg.testLossInbound &+= 1
            if leg.testLossInbound % configuration.testVideoLossInbound == 0 { return drop(.testLoss) }
        }
        var length = received
        let status = isRTCP ? srtp.inbound.unprotectRTCP(slot, length: &length)
                            : srtp.inbound.unprotectRTP(slot, length: &length)
        switch status {
        case .ok:
            break
        case .authFail:
            leg.decryptFailures &+= 1
            counters.decryptFailures &+= 1
            return drop(.srtpAuthFail)
        case .replayFail, .replayOld:
            leg.decryptFailures &+= 1
            counters.decryptFailures &+= 1
            return drop(.replay)
        case .badParameter, .bufferTooSmall, .other:
            return drop(.srtpError)
        }
        // An SSRC past the leg's budget: its stream, just made by libsrtp, goes again (RTCP by its
        // sender's SSRC; RTP's below, once its kind is known).
        if isRTCP, !admitRTCPSender(slot, length: length, of: leg, srtp: srtp) { return drop(.ssrcLimit) }
        leg.packetsIn &+= 1
        leg.bytesIn &+= UInt64(received)
        // Authenticated under the leg's keys: proof for MediaPath (one comparison for the target).
        if let moved = leg.path.authenticated(from: peer, now: now) { sendAddressChanged(leg, moved) }
        let packet = UnsafeMutableRawBufferPointer(rebasing: slot[0..<length])

        // The plan is used in place (`leg.plan?.…`): binding it to a local would copy the struct
        // and retain its tables on every packet.
        if isRTCP {
            let kept = answerNACKs(in: packet, from: leg)
            guard kept > 0 else { return }   // NACKs the relay answered in full: nothing for the sender
            let compound = UnsafeMutableRawBufferPointer(rebasing: slot[0..<kept])
            guard let target = leg.target, let rewritten = leg.plan?.rewriteRTCP(compound) else { return drop(.noTarget) }
            guard rewritten else { return drop(.malformedRTCP) }
            forward(slot, length: kept, to: target, isRTCP: true)
            return
        }

        guard case .success(let header) = RTPHeader.parse(UnsafeRawBufferPointer(packet)) else {
            return drop(.malformedRTP)
        }
        if leg.mediaLookup.isRTX(header.payloadType) {
            guard leg.admitSSRC(header.ssrc, limit: configuration.maxSSRCsPerLeg) else {
                srtp.inbound.removeStream(ssrc: header.ssrc)
                return drop(.ssrcLimit)
            }
            return forwardRTX(slot, packet: packet, header: header, from: leg)
        }
        guard let kind = leg.mediaLookup.kind(ofPayloadType: header.payloadType) else { return drop(.unknownPayloadType) }
        if !leg.mediaLookup.isPrimary(header.ssrc, for: kind) {
            // An offer without a=ssrc, or a client that changed SSRC: learn it so RTCP maps —
            // within the leg's SSRC budget, so a client cycling SSRCs cannot grow its state.
            guard leg.admitSSRC(header.ssrc, limit: configuration.maxSSRCsPerLeg) else {
                srtp.inbound.removeStream(ssrc: header.ssrc)
                return drop(.ssrcLimit)
            }
            leg.media.learnRemoteSSRC(header.ssrc, for: kind)
            rebuildPlans(leg)
        }
        if let clockRate = leg.mediaLookup.clockRate(of: kind) {
            let micros = now.uptimeNanoseconds / 1000
            let arrival = UInt32(truncatingIfNeeded: micros &* UInt64(clockRate) / 1_000_000)
            leg.reception[kind.rawValue].record(ssrc: header.ssrc, sequence: header.sequenceNumber,
                                                timestamp: header.timestamp, arrival: arrival)
        }
        guard let target = leg.target, let outcome = leg.plan?.rewriteRTP(packet, header: header, kind: kind) else {
            return drop(.noTarget)
        }
        switch outcome {
        case .forward(let kind):
            if kind == .video, target.canReceiveMedia {
                if target.history == nil {
                    target.history = RetransmissionHistory(capacity: Self.historyCapacity, slotSize: Self.historySlotSize)
                }
                target.history?.store(UnsafeRawBufferPointer(packet), sequence: header.sequenceNumber)
                if target.keyFrameWait != nil { noteKeyFrame(UnsafeRawBufferPointer(packet), header: header, to: target) }
                if configuration.testVideoLossOutbound > 0 {
                    target.testLossOutbound &+= 1
                    if target.testLossOutbound % configuration.testVideoLossOutbound == 0 { return drop(.testLoss) }
                }
            }
            forward(slot, length: length, to: target, isRTCP: false)
            if !leg.forwardedMedia {
                leg.forwardedMedia = true
                events.yield(LegEvent(leg: leg.id, owner: leg.owner, kind: .mediaFlowing))
            }
        case .drop(let reason):
            drop(reason)
        }
    }

    /// Video packets kept per receiving leg for its NACKs (about a second of 1 Mbit/s VP8), and
    /// the largest kept (a browser's RTP packets stay under 1200 bytes).
    static let historyCapacity = 128
    static let historySlotSize = 1_280

    /// Protects `slot[0..<length]` in place for `target` and queues it (only to the address
    /// ``MediaPath`` chose, and only once the target's DTLS exported keys).
    func forward(_ slot: UnsafeMutableRawBufferPointer, length: Int, to target: RelayLeg, isRTCP: Bool) {
        guard target.canReceiveMedia, let address = target.sendAddress, let srtp = target.srtp else {
            return drop(.noTarget)
        }
        var length = length
        let status = isRTCP ? srtp.outbound.protectRTCP(slot, length: &length)
                            : srtp.outbound.protectRTP(slot, length: &length)
        guard status == .ok else { return drop(.protectFailed) }
        target.packetsOut &+= 1
        target.bytesOut &+= UInt64(length)
        send(UnsafeRawBufferPointer(rebasing: slot[0..<length]), to: address)
    }

    /// Whether a decrypted RTCP compound's sender (its first packet's SSRC, RFC 3550 §6.4) may go
    /// on: one of the leg's primary SSRCs, one it used before, or a new one within its budget
    /// (``RelayConfiguration/maxSSRCsPerLeg``, shared with RTP's). A refused one's libsrtp stream
    /// goes again: libsrtp makes one per SSRC that authenticates, and RTCP has no other bound.
    func admitRTCPSender(_ slot: UnsafeMutableRawBufferPointer, length: Int, of leg: RelayLeg, srtp: SRTPPair) -> Bool {
        guard length >= 8 else { return true }   // names no sender: the compound's own checks drop it
        let ssrc = UInt32(slot[4]) << 24 | UInt32(slot[5]) << 16 | UInt32(slot[6]) << 8 | UInt32(slot[7])
        if leg.mediaLookup.isPrimary(ssrc, for: .audio) || leg.mediaLookup.isPrimary(ssrc, for: .video) { return true }
        guard leg.admitSSRC(ssrc, limit: configuration.maxSSRCsPerLeg) else {
            srtp.inbound.removeStream(ssrc: ssrc)
            return false
        }
        return true
    }
}

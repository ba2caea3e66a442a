import NIOCore
import ParleyRTP

extension RelayEngine {
    /// Asks `leg`'s client for a video key frame with a PLI (RFC 4585 §6.3.1), as an SFU must
    /// whenever a receiver starts listening mid-stream: the sender's first key frame went out
    /// before the receiver was connected (or paired), and VP8 cannot be decoded without one.
    /// Returns whether the request went out.
    @discardableResult
    func requestKeyFrame(from leg: RelayLeg) -> Bool {
        guard leg.canReceiveMedia, let address = leg.sendAddress, let srtp = leg.srtp,
              let video = leg.media.video, let clientSSRC = video.remotePrimarySSRC else { return false }
        let pli = RTCPBuilder.pictureLossIndication(senderSSRC: video.localSSRC, mediaSSRC: clientSSRC)
        guard pli.count + srtp.profile.rtcpOverhead <= scratch.count else { return false }
        pli.withUnsafeBytes { scratch.copyMemory(from: $0) }
        var length = pli.count
        guard srtp.outbound.protectRTCP(scratch, length: &length) == .ok else { return false }
        leg.packetsOut &+= 1
        leg.bytesOut &+= UInt64(length)
        counters.keyFrameRequests &+= 1
        send(UnsafeRawBufferPointer(rebasing: scratch[0..<length]), to: address)
        logger.debug("key frame requested", metadata: ["leg": "\(leg.id)"])
        return true
    }

    /// Asks `receiver`'s partner for a key frame for it, and keeps asking (``tick(now:)``) until
    /// one has been forwarded to `receiver` — a request can be ignored, and the frame it brings
    /// can arrive before `receiver` is connected.
    func requestKeyFrame(for receiver: RelayLeg, now: NIODeadline) {
        guard receiver.media.video != nil, let source = receiver.target, source.target === receiver,
              source.media.video != nil else { return }
        let sent = requestKeyFrame(from: source)
        let requests = (receiver.keyFrameWait?.requests ?? 0) + (sent ? 1 : 0)
        receiver.keyFrameWait = KeyFrameWait(requests: requests, lastRequest: now)
    }

    /// Once `leg` can receive, every connected leg that forwards to it sends a key frame.
    func requestKeyFramesForNewReceiver(_ leg: RelayLeg) {
        guard leg.canReceiveMedia else { return }
        requestKeyFrame(for: leg, now: .now())
        flushIfNeeded()
    }

    /// On the packet path, for a video packet about to go to `target` that waits for a key frame.
    func noteKeyFrame(_ packet: UnsafeRawBufferPointer, header: RTPHeader, to target: RelayLeg) {
        guard target.canReceiveMedia, header.payloadRange.upperBound <= packet.count,
              VP8KeyFrame.starts(UnsafeRawBufferPointer(rebasing: packet[header.payloadRange])) else { return }
        target.keyFrameWait = nil
    }
}

import NIOCore
import ParleyRTP

extension RelayEngine {
    /// Asks `leg`'s client for a video key frame with a PLI (RFC 4585 §6.3.1), as an SFU must
    /// whenever a receiver starts listening mid-stream: the sender's first key frame went out
    /// before the receiver was connected (or paired), and VP8 cannot be decoded without one.
    func requestKeyFrame(from leg: RelayLeg) {
        guard leg.canReceiveMedia, let address = leg.sendAddress, let srtp = leg.srtp,
              let video = leg.media.video, let clientSSRC = video.remotePrimarySSRC else { return }
        let pli = RTCPBuilder.pictureLossIndication(senderSSRC: video.localSSRC, mediaSSRC: clientSSRC)
        guard pli.count + srtp.profile.rtcpOverhead <= scratch.count else { return }
        pli.withUnsafeBytes { scratch.copyMemory(from: $0) }
        var length = pli.count
        guard srtp.outbound.protectRTCP(scratch, length: &length) == .ok else { return }
        leg.packetsOut &+= 1
        leg.bytesOut &+= UInt64(length)
        send(UnsafeRawBufferPointer(rebasing: scratch[0..<length]), to: address)
        logger.debug("key frame requested", metadata: ["leg": "\(leg.id)"])
    }

    /// Once `leg` can receive, every connected leg that forwards to it sends a key frame.
    func requestKeyFramesForNewReceiver(_ leg: RelayLeg) {
        guard leg.canReceiveMedia, let source = leg.target, source.target === leg, source.canReceiveMedia else { return }
        requestKeyFrame(from: source)
        flushIfNeeded()
    }
}

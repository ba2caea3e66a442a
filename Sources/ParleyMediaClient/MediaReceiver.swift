import ParleyCodecs
import ParleyRTP

/// Receives a call's media: verifies and decrypts SRTP/SRTCP, decodes Opus, reassembles VP8 by
/// sequence number (RFC 7741 §4.5) and decodes it, and checks what it hears and sees — the tone's
/// frequency and the `MovingPattern` frame numbers.
///
/// When the depacketizer has lost a frame it skips delta frames and sends a PLI (at most every
/// 200 ms) until a key frame comes. Every problem is counted in ``statistics``, nothing throws.
/// PCM, payload and picture buffers are reused across packets.
public final class MediaReceiver {
    public private(set) var statistics = MediaReceiverStatistics()
    /// Everything after the first few (warm-up) frames goes into one-second windows.
    static let toneWarmUpFrames = 5
    static let toneWindowFrames = 50

    private let audioPayloadType: UInt8
    private let videoPayloadType: UInt8
    private let expectedTone: Double
    private let audioDecoder: OpusDecoder
    private let videoDecoder: VP8Decoder
    private var depacketizer = VP8Depacketizer()
    private var lastAudioSequence: UInt16?
    private var lastPLI: ContinuousClock.Instant?
    /// Set after a decode failure or a dropped payload, until a key frame decodes.
    private var awaitingKeyFrame = true
    private let start: ContinuousClock.Instant
    private var payload: [UInt8] = []
    private var pcm: [Int16] = []
    private var toneWindow: [Int16] = []
    private var picture = I420Frame(width: 2, height: 2)
    private let pictureLossIndication: (_ mediaSSRC: UInt32) -> Void

    /// - Parameter sendPLI: called with the remote video SSRC when a key frame is needed.
    init(audioPayloadType: UInt8, videoPayloadType: UInt8, expectedTone: Double,
         start: ContinuousClock.Instant, sendPLI: @escaping (_ mediaSSRC: UInt32) -> Void) throws(MediaClientError) {
        do {
            audioDecoder = try OpusDecoder(channels: 1)
            videoDecoder = try VP8Decoder()
        } catch {
            throw .setup("decoder: \(error)")
        }
        self.audioPayloadType = audioPayloadType
        self.videoPayloadType = videoPayloadType
        self.expectedTone = expectedTone
        self.start = start
        pictureLossIndication = sendPLI
        payload.reserveCapacity(1_500)
        toneWindow.reserveCapacity(Self.toneWindowFrames * OpusDecoder.maxSamplesPerChannel)
    }

    /// One datagram classified as RTP or RTCP (RFC 7983); decrypts it in place.
    /// Returns the RTCP packets it carried, for the sender to act on.
    func receive(_ bytes: inout [UInt8], transport: SRTPTransport, now: ContinuousClock.Instant) -> [RTCPPacket] {
        guard bytes.count > 1 else { statistics.malformedPackets += 1; return [] }
        let isRTCP = PacketKind.isRTCP(secondByte: bytes[1])
        guard let length = transport.unprotect(&bytes, rtcp: isRTCP) else { statistics.srtpFailures += 1; return [] }
        if isRTCP {
            statistics.rtcpPackets += 1
            let parsed = bytes.withUnsafeBytes { RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
            guard case .success(let packets) = parsed else { statistics.malformedPackets += 1; return [] }
            return packets
        }
        let parsed = bytes.withUnsafeBytes { RTPHeader.parse(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        guard case .success(let header) = parsed, header.payloadRange.upperBound <= length else {
            statistics.malformedPackets += 1
            return []
        }
        payload.removeAll(keepingCapacity: true)
        payload.append(contentsOf: bytes[header.payloadRange])
        switch header.payloadType {
        case audioPayloadType: receiveAudio(header, now: now)
        case videoPayloadType: receiveVideo(header, now: now)
        default: statistics.unknownPayloadTypes += 1
        }
        return []
    }

    private func receiveAudio(_ header: RTPHeader, now: ContinuousClock.Instant) {
        statistics.audioPackets += 1
        if let last = lastAudioSequence {
            let delta = header.sequenceNumber &- last
            guard delta != 0, delta < 0x8000 else { statistics.audioOutOfOrder += 1; return }
            statistics.audioPacketsLost += Int(delta) - 1
        }
        lastAudioSequence = header.sequenceNumber
        do {
            try audioDecoder.decode(payload, into: &pcm)
        } catch {
            statistics.opusDecodeFailures += 1
            return
        }
        statistics.audioFramesDecoded += 1
        if statistics.firstAudioFrameAfter == nil { statistics.firstAudioFrameAfter = now - start }
        guard statistics.audioFramesDecoded > Self.toneWarmUpFrames else { return }
        toneWindow.append(contentsOf: pcm)
        if toneWindow.count >= Self.toneWindowFrames * OpusEncoder.samplesPerChannelPerFrame {
            let frequency = ToneDetector.dominantFrequency(toneWindow)
            statistics.toneFrequency = frequency
            statistics.toneWindows += 1
            if abs((frequency ?? 0) - expectedTone) > 10 { statistics.toneWindowsOff += 1 }
            toneWindow.removeAll(keepingCapacity: true)
        }
    }

    private func receiveVideo(_ header: RTPHeader, now: ContinuousClock.Instant) {
        statistics.videoPackets += 1
        let outcome = depacketizer.push(payload, sequenceNumber: header.sequenceNumber, marker: header.marker)
        statistics.videoPacketsLost = depacketizer.statistics.packetsLost
        statistics.vp8PayloadsDropped = depacketizer.statistics.payloadsDropped
        switch outcome {
        case .incomplete:
            return
        case .dropped:
            requestKeyFrame(from: header.ssrc, now: now)
        case .frame(let frame):
            // A delta frame after a loss (even of whole frames, which the depacketizer notes in
            // `needsKeyFrame` without dropping this one) would decode against the wrong reference.
            guard frame.isKeyFrame || !(awaitingKeyFrame || depacketizer.needsKeyFrame) else {
                statistics.framesAwaitingKeyFrame += 1
                requestKeyFrame(from: header.ssrc, now: now)
                return
            }
            awaitingKeyFrame = false
            decode(frame, now: now)
        }
    }

    private func decode(_ frame: VP8DepacketizedFrame, now: ContinuousClock.Instant) {
        do {
            try videoDecoder.decode(frame.data, into: &picture)
        } catch {
            statistics.vp8DecodeFailures += 1
            awaitingKeyFrame = true
            return
        }
        statistics.videoFramesDecoded += 1
        if frame.isKeyFrame { statistics.keyFramesDecoded += 1 }
        if statistics.firstVideoFrameAfter == nil { statistics.firstVideoFrameAfter = now - start }
        guard let number = MovingPattern.readFrameNumber(from: picture) else {
            statistics.unreadableFrameNumbers += 1
            return
        }
        if let last = statistics.lastFrameNumber {
            let delta = number &- last
            if delta == 0 || delta >= 0x8000 { statistics.frameNumberRegressions += 1 }
        }
        statistics.lastFrameNumber = number
    }

    private func requestKeyFrame(from ssrc: UInt32, now: ContinuousClock.Instant) {
        awaitingKeyFrame = true
        if let lastPLI, now - lastPLI < .milliseconds(200) { return }
        lastPLI = now
        statistics.pictureLossIndicationsSent += 1
        pictureLossIndication(ssrc)
    }
}

import ParleyCodecs
import ParleyRTP

/// Sends a call's media: 20 ms Opus frames of a tone and VP8 frames of a `MovingPattern` at the
/// configured rate, over RTP (RFC 7587, RFC 7741) with the offer's payload types and SSRCs.
///
/// Timestamps follow the media clocks (48 kHz audio, 90 kHz video) from the frame index, not the
/// wall clock, so a late tick sends the frames it owes with the timestamps they should have had.
/// A PLI or FIR for the video SSRC makes the next video frame a key frame. Codec failures are
/// counted, never thrown. Encoders, PCM, pictures and packet buffers are reused across frames.
public final class MediaSender {
    /// What was sent.
    public struct Statistics: Sendable, Equatable {
        public var audioFramesSent = 0
        public var videoFramesSent = 0
        public var keyFramesSent = 0
        public var keyFrameRequests = 0
        public var rtpPacketsSent = 0
        /// Largest RTP packet before SRTP.
        public var largestRTPPacket = 0
        public var encodeFailures = 0
    }

    public private(set) var statistics = Statistics()

    private let audioEncoder: OpusEncoder
    private let videoEncoder: VP8Encoder
    private let pattern: MovingPattern
    private var tone: TonePCM
    private var packetizer: VP8Packetizer
    private var audioWriter: RTPPacketWriter
    private var videoWriter: RTPPacketWriter
    private let audioTimestampBase = UInt32.random(in: 0...UInt32.max)
    private let videoTimestampBase = UInt32.random(in: 0...UInt32.max)
    private let frameInterval: Duration
    private let framesPerSecond: Int
    private var start: ContinuousClock.Instant?
    private var audioIndex = 0
    private var videoIndex = 0
    private var pcm: [Int16] = []
    private var opusPacket: [UInt8] = []
    private var picture: I420Frame
    private var encoded: [VP8EncodedFrame] = []
    private var payloads: [VP8RTPPayload] = []
    let videoSSRC: UInt32

    init(offer: MediaOffer, configuration: MediaClientConfiguration) throws(MediaClientError) {
        guard let pattern = MovingPattern(width: configuration.videoWidth, height: configuration.videoHeight) else {
            throw .setup("video size \(configuration.videoWidth)×\(configuration.videoHeight) cannot carry frame numbers")
        }
        self.pattern = pattern
        do {
            audioEncoder = try OpusEncoder(channels: 1, bitrate: 32_000)
            videoEncoder = try VP8Encoder(VP8EncoderConfiguration(
                width: configuration.videoWidth, height: configuration.videoHeight,
                targetBitrateKbps: configuration.videoBitrateKbps, framesPerSecond: configuration.framesPerSecond))
        } catch {
            throw .setup("encoder: \(error)")
        }
        tone = TonePCM(frequency: configuration.toneFrequency)
        audioWriter = RTPPacketWriter(ssrc: offer.audioSSRC, payloadType: offer.audioPayloadType,
                                      midExtensionID: offer.midExtensionID, mid: offer.mids.audio)
        videoWriter = RTPPacketWriter(ssrc: offer.videoSSRC, payloadType: offer.videoPayloadType,
                                      midExtensionID: offer.midExtensionID, mid: offer.mids.video)
        do {
            packetizer = try VP8Packetizer(maxPayloadSize: configuration.maxRTPPacketSize - videoWriter.headerSize,
                                           pictureID: UInt16.random(in: 0...0x7fff))
        } catch {
            throw .setup("max RTP packet size \(configuration.maxRTPPacketSize) too small")
        }
        videoSSRC = offer.videoSSRC
        framesPerSecond = configuration.framesPerSecond
        frameInterval = .seconds(1) / configuration.framesPerSecond
        picture = I420Frame(width: configuration.videoWidth, height: configuration.videoHeight)
        opusPacket.reserveCapacity(OpusEncoder.maxPacketSize)
    }

    /// Sends every audio and video frame due by `now`; the first call sets time zero.
    func sendDue(now: ContinuousClock.Instant, transport: SRTPTransport, link: UDPLink) {
        let start = self.start ?? now
        self.start = start
        // At most a second's worth per call, so a stalled process does not flood the peer.
        var budget = 50
        while start + .milliseconds(20) * audioIndex <= now, budget > 0 {
            sendAudioFrame(transport: transport, link: link)
            budget -= 1
        }
        budget = framesPerSecond
        while start + frameInterval * videoIndex <= now, budget > 0 {
            sendVideoFrame(transport: transport, link: link)
            budget -= 1
        }
        link.flush()
    }

    /// RTCP from the peer: a PLI (RFC 4585 §6.3.1) or FIR (RFC 5104 §4.3.1) about our video asks
    /// for a key frame.
    func handle(_ packet: RTCPPacket) {
        switch packet {
        case .pictureLossIndication(let pli) where pli.mediaSSRC == videoSSRC:
            requestKeyFrame()
        case .fullIntraRequest(let fir) where fir.entries.contains(where: { $0.ssrc == videoSSRC }):
            requestKeyFrame()
        default:
            break
        }
    }

    private func requestKeyFrame() {
        statistics.keyFrameRequests += 1
        videoEncoder.forceKeyFrame()
    }

    private func sendAudioFrame(transport: SRTPTransport, link: UDPLink) {
        let timestamp = audioTimestampBase &+ UInt32(truncatingIfNeeded: audioIndex &* OpusEncoder.samplesPerChannelPerFrame)
        audioIndex += 1
        tone.nextFrame(into: &pcm)
        do {
            try audioEncoder.encode(pcm, into: &opusPacket)
        } catch {
            statistics.encodeFailures += 1
            return
        }
        opusPacket.withUnsafeBytes {
            audioWriter.write(into: &transport.sendBuffer, timestamp: timestamp, marker: false, payload: $0)
        }
        send(transport: transport, link: link)
        statistics.audioFramesSent += 1
    }

    private func sendVideoFrame(transport: SRTPTransport, link: UDPLink) {
        let timestamp = videoTimestampBase &+ UInt32(truncatingIfNeeded: videoIndex &* (90_000 / framesPerSecond))
        pattern.render(frameNumber: videoIndex, into: &picture)
        videoIndex += 1
        do {
            try videoEncoder.encode(picture, into: &encoded)
        } catch {
            statistics.encodeFailures += 1
            return
        }
        for frame in encoded {
            packetizer.packetize(frame.data, into: &payloads)
            for payload in payloads {
                payload.bytes.withUnsafeBytes {
                    videoWriter.write(into: &transport.sendBuffer, timestamp: timestamp, marker: payload.marker, payload: $0)
                }
                send(transport: transport, link: link)
            }
            statistics.videoFramesSent += 1
            if frame.isKeyFrame { statistics.keyFramesSent += 1 }
        }
    }

    private func send(transport: SRTPTransport, link: UDPLink) {
        statistics.largestRTPPacket = max(statistics.largestRTPPacket, transport.sendBuffer.count)
        statistics.rtpPacketsSent += 1
        transport.protectAndWrite(rtcp: false, to: link)
    }
}

import ParleyCodecs
import ParleyRTP

/// Receives a call's media: verifies and decrypts SRTP/SRTCP, decodes Opus, reassembles VP8 by
/// sequence number (RFC 7741 §4.5) and decodes it, and checks what it hears and sees — the tone's
/// frequency and the `MovingPattern` frame numbers.
///
/// With shared ``PreEncodedMedia`` every Opus payload and reassembled VP8 frame is also looked up
/// by the hash of its bytes, and frame numbers count round the loop; with `decodes` off no
/// decoder exists and that lookup is the whole check. Every RTP packet feeds the RFC 3550
/// interarrival jitter of its stream and, when it carries abs-send-time, the one-way latency
/// histogram.
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
    /// The answer's RTX payload type for video (RFC 4588), if it kept one.
    private let videoRTXPayloadType: UInt8?
    private let expectedTone: Double
    private let audioDecoder: OpusDecoder?
    private let videoDecoder: VP8Decoder?
    private let library: PreEncodedMedia?
    private let absSendTimeExtensionID: UInt8?
    /// Frame numbers count modulo this: the loop's length when replaying shared media, else 2¹⁶.
    private let frameNumberPeriod: Int
    private var audioJitter = RTPJitterEstimator(clockRate: 48_000)
    private var videoJitter = RTPJitterEstimator(clockRate: 90_000)
    private var depacketizer = VP8Depacketizer()
    private var lastPLI: ContinuousClock.Instant?
    /// Set after a decode failure or a dropped payload, until a key frame decodes.
    private var awaitingKeyFrame = true
    private let start: ContinuousClock.Instant
    private var payload: [UInt8] = []
    private var pcm: [Int16] = []
    private var toneWindow: [Int16] = []
    private var picture = I420Frame(width: 2, height: 2)
    private let pictureLossIndication: (_ mediaSSRC: UInt32) -> Void
    private let negativeAcknowledgement: ((_ mediaSSRC: UInt32, _ lost: [UInt16]) -> Void)?
    private var reorder: VideoReorderBuffer
    private var audioReorder: VideoReorderBuffer
    private var released: [VideoReorderBuffer.Packet] = []
    private var videoSSRC: UInt32?
    private var lastVideoFrameAt: ContinuousClock.Instant?
    /// The RTP timestamp of the video packet being handed on; the frame it completes has it.
    private var frameTimestamp: UInt32 = 0
    private var lastFrameTimestamp: (extended: Int64, timestamp: UInt32)?
    private var renderBaseline: ContinuousClock.Instant?
    private let playoutDelay: Duration
    /// Gaps between shown video frames longer than this are freezes (as the load figures count them).
    static let freezeThreshold: Duration = .milliseconds(200)

    /// - Parameters:
    ///   - library: the media the peer replays, to check frames against byte for byte.
    ///   - decodes: whether to decode with libopus and libvpx at all.
    ///   - absSendTimeExtensionID: the id arriving packets carry abs-send-time under, if any.
    ///   - videoReorderWait: how long video packets after a gap wait for the missing ones.
    ///   - audioReorderWait: the same for audio (a jitter buffer's depth: what is later is concealed).
    ///   - firstNACKDelay: how long a video gap may fill by itself (reordering) before it is NACKed.
    ///   - playoutDelay: how far behind its media time a frame is shown, for the freeze count.
    ///   - sendNACK: called with the remote video SSRC and the sequence numbers missing (nil: no NACKs).
    ///   - sendPLI: called with the remote video SSRC when a key frame is needed.
    init(audioPayloadType: UInt8, videoPayloadType: UInt8, videoRTXPayloadType: UInt8? = nil, expectedTone: Double, start: ContinuousClock.Instant,
         library: PreEncodedMedia? = nil, decodes: Bool = true, absSendTimeExtensionID: UInt8? = nil,
         videoReorderWait: Duration = .zero, audioReorderWait: Duration = .zero, firstNACKDelay: Duration = .zero,
         playoutDelay: Duration = .zero,
         sendNACK: ((_ mediaSSRC: UInt32, _ lost: [UInt16]) -> Void)? = nil,
         sendPLI: @escaping (_ mediaSSRC: UInt32) -> Void) throws(MediaClientError) {
        if decodes {
            do {
                audioDecoder = try OpusDecoder(channels: 1)
                videoDecoder = try VP8Decoder()
            } catch {
                throw .setup("decoder: \(error)")
            }
            toneWindow.reserveCapacity(Self.toneWindowFrames * OpusDecoder.maxSamplesPerChannel)
        } else {
            audioDecoder = nil
            videoDecoder = nil
        }
        self.audioPayloadType = audioPayloadType
        self.videoPayloadType = videoPayloadType
        self.videoRTXPayloadType = videoRTXPayloadType
        self.expectedTone = expectedTone
        self.library = library
        self.absSendTimeExtensionID = absSendTimeExtensionID
        frameNumberPeriod = library?.videoFrameCount ?? 1 << MovingPattern.bitCount
        self.start = start
        pictureLossIndication = sendPLI
        negativeAcknowledgement = sendNACK
        self.playoutDelay = playoutDelay
        // A missing packet is asked for again once a resend could have come back (about the wait's half).
        reorder = VideoReorderBuffer(maxWait: videoReorderWait, firstNACKDelay: firstNACKDelay,
                                     nackInterval: max(.milliseconds(100), videoReorderWait / 2))
        audioReorder = VideoReorderBuffer(maxWait: audioReorderWait)
        payload.reserveCapacity(1_500)
    }

    /// One datagram classified as RTP or RTCP (RFC 7983); decrypts it in place.
    /// Returns the RTCP packets it carried, for the sender to act on.
    func receive(_ bytes: inout [UInt8], transport: SRTPTransport, now: ContinuousClock.Instant) -> [RTCPPacket] {
        guard bytes.count > 1 else { statistics.malformedPackets += 1; return [] }
        let isRTCP = PacketKind.isRTCP(secondByte: bytes[1])
        let replaysBefore = transport.drops.replays
        guard let length = transport.unprotect(&bytes, rtcp: isRTCP) else {
            // A packet had twice (resent by both the relay and the sender, or duplicated on the
            // way) is a replay to SRTP, not a failure.
            if transport.drops.replays > replaysBefore { statistics.duplicatePackets += 1 } else { statistics.srtpFailures += 1 }
            return []
        }
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
        if let id = absSendTimeExtensionID,
           let sent = bytes.withUnsafeBytes({ header.absSendTime(id: id, in: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }) {
            statistics.latency.record(AbsSendTime.latency(sent: sent, receivedAt: now))
        }
        payload.removeAll(keepingCapacity: true)
        payload.append(contentsOf: bytes[header.payloadRange])
        switch header.payloadType {
        case audioPayloadType: receiveAudio(header, now: now)
        case videoPayloadType: receiveVideo(header, now: now)
        case let type where type == videoRTXPayloadType: receiveVideoRetransmission(header, now: now)
        default: statistics.unknownPayloadTypes += 1
        }
        return []
    }

    private func receiveAudio(_ header: RTPHeader, now: ContinuousClock.Instant) {
        audioJitter.record(arrival: audioJitter.arrival(now, since: start), timestamp: header.timestamp)
        statistics.audioJitter = audioJitter.seconds
        var missing: [UInt16] = []   // audio is not NACKed (browsers do not either)
        switch audioReorder.arrive(sequence: header.sequenceNumber, marker: header.marker, payload: payload, now: now,
                                   newlyMissing: &missing) {
        case .inOrder:
            statistics.audioPackets += 1
            play(payload, now: now)
        case .held:
            statistics.audioPackets += 1
        case .late:
            statistics.audioOutOfOrder += 1
        }
        releaseHeldAudio(now: now)
    }

    private func releaseHeldAudio(now: ContinuousClock.Instant) {
        guard audioReorder.isHolding else { return }
        audioReorder.release(now: now, into: &released)
        statistics.audioPacketsLost = audioReorder.givenUp
        for packet in released { play(packet.payload, now: now) }
        released.removeAll(keepingCapacity: true)
    }

    /// One Opus frame in sequence order: checked against the shared media, decoded, the tone measured.
    private func play(_ payload: [UInt8], now: ContinuousClock.Instant) {
        var verified = true
        if let library {
            verified = library.audioIndex(of: payload) != nil
            if verified { statistics.audioFramesVerified += 1 } else { statistics.audioFramesMismatched += 1 }
        }
        guard let audioDecoder else {
            if verified { passed(audio: true, now: now) }
            return
        }
        do {
            try audioDecoder.decode(payload, into: &pcm)
        } catch {
            statistics.opusDecodeFailures += 1
            return
        }
        statistics.audioFramesDecoded += 1
        passed(audio: true, now: now)
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

    /// An RTX packet (RFC 4588 §4): the original sequence number, then the original payload,
    /// which goes on as the video packet it repairs, on the video stream's SSRC.
    private func receiveVideoRetransmission(_ header: RTPHeader, now: ContinuousClock.Instant) {
        guard payload.count >= 2 else { statistics.malformedPackets += 1; return }
        var original = header
        original.sequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
        original.payloadType = videoPayloadType
        original.ssrc = videoSSRC ?? header.ssrc
        payload.removeFirst(2)
        statistics.videoRetransmissionsReceived += 1
        receiveVideo(original, now: now, retransmission: true)
    }

    private func receiveVideo(_ header: RTPHeader, now: ContinuousClock.Instant, retransmission: Bool = false) {
        if !retransmission {   // a resend's late arrival says nothing of the path's jitter (RFC 3550 §6.4.1)
            videoJitter.record(arrival: videoJitter.arrival(now, since: start), timestamp: header.timestamp)
            statistics.videoJitter = videoJitter.seconds
        }
        videoSSRC = header.ssrc
        var newlyMissing: [UInt16] = []
        switch reorder.arrive(sequence: header.sequenceNumber, marker: header.marker, payload: payload,
                              timestamp: header.timestamp, now: now, newlyMissing: &newlyMissing) {
        case .inOrder:
            statistics.videoPackets += 1
            frameTimestamp = header.timestamp
            depacketize(payload, sequence: header.sequenceNumber, marker: header.marker, ssrc: header.ssrc, now: now)
        case .held(let filledGap):
            statistics.videoPackets += 1
            if filledGap { statistics.videoPacketsRecovered += 1 }
        case .late:
            statistics.videoPacketsLate += 1
        }
        if !newlyMissing.isEmpty { sendNACK(newlyMissing) }
        releaseHeldVideo(now: now)
    }

    /// On the client's clock tick: video held past its wait goes on, and missing packets are
    /// asked for again.
    func tick(now: ContinuousClock.Instant) {
        releaseHeldAudio(now: now)
        releaseHeldVideo(now: now)
        let due = reorder.nacksDue(now: now)
        if !due.isEmpty { sendNACK(due) }
    }

    /// At most this many packets are named in one NACK: a burst larger than that is a key
    /// frame's business (libwebrtc, past its NACK list's size, asks for one instead).
    static let maxPacketsPerNACK = 64

    private func sendNACK(_ missing: [UInt16]) {
        guard let negativeAcknowledgement, let videoSSRC else { return }
        let lost = missing.count > Self.maxPacketsPerNACK ? Array(missing.prefix(Self.maxPacketsPerNACK)) : missing
        statistics.nacksSent += 1
        statistics.packetsNACKed += lost.count
        negativeAcknowledgement(videoSSRC, lost)
    }

    private func releaseHeldVideo(now: ContinuousClock.Instant) {
        guard reorder.isHolding, let ssrc = videoSSRC else { return }
        reorder.release(now: now, into: &released)
        statistics.videoPacketsGivenUp = reorder.givenUp
        for packet in released {
            frameTimestamp = packet.timestamp
            depacketize(packet.payload, sequence: packet.sequence, marker: packet.marker, ssrc: ssrc, now: now)
        }
        released.removeAll(keepingCapacity: true)
    }

    private func depacketize(_ payload: [UInt8], sequence: UInt16, marker: Bool, ssrc: UInt32, now: ContinuousClock.Instant) {
        let outcome = depacketizer.push(payload, sequenceNumber: sequence, marker: marker)
        statistics.videoPacketsLost = depacketizer.statistics.packetsLost
        statistics.vp8PayloadsDropped = depacketizer.statistics.payloadsDropped
        switch outcome {
        case .incomplete:
            return
        case .dropped:
            requestKeyFrame(from: ssrc, now: now)
        case .frame(let frame):
            var loopPosition: Int?
            if let library {
                loopPosition = library.videoIndex(of: frame.data)
                if loopPosition != nil { statistics.videoFramesVerified += 1 } else { statistics.videoFramesMismatched += 1 }
            }
            // A delta frame after a loss (even of whole frames, which the depacketizer notes in
            // `needsKeyFrame` without dropping this one) would decode against the wrong reference.
            guard frame.isKeyFrame || !(awaitingKeyFrame || depacketizer.needsKeyFrame) else {
                statistics.framesAwaitingKeyFrame += 1
                requestKeyFrame(from: ssrc, now: now)
                return
            }
            awaitingKeyFrame = false
            if videoDecoder != nil {
                decode(frame, now: now)
            } else if library == nil || loopPosition != nil {
                passed(audio: false, now: now)
                if let loopPosition { checkOrder(UInt16(truncatingIfNeeded: loopPosition)) }
            }
        }
    }

    private func decode(_ frame: VP8DepacketizedFrame, now: ContinuousClock.Instant) {
        do {
            try videoDecoder?.decode(frame.data, into: &picture)
        } catch {
            statistics.vp8DecodeFailures += 1
            awaitingKeyFrame = true
            return
        }
        statistics.videoFramesDecoded += 1
        if frame.isKeyFrame { statistics.keyFramesDecoded += 1 }
        passed(audio: false, now: now)
        guard let number = MovingPattern.readFrameNumber(from: picture) else {
            statistics.unreadableFrameNumbers += 1
            return
        }
        checkOrder(number)
    }

    /// Frame numbers must move forward modulo the period — skipping some is fine (loss, a replay
    /// jumping to a key frame) — so the same number again or one up to half the period back is
    /// a regression.
    private func checkOrder(_ number: UInt16) {
        if let last = statistics.lastFrameNumber {
            let period = frameNumberPeriod
            let delta = ((Int(number) - Int(last)) % period + period) % period
            if delta == 0 || delta >= period - period / 2 { statistics.frameNumberRegressions += 1 }
        }
        statistics.lastFrameNumber = number
    }

    /// A frame passed this receiver's check: decoded, or (not decoding) verified or at least whole.
    private func passed(audio: Bool, now: ContinuousClock.Instant) {
        if statistics.firstFrameAt == nil { statistics.firstFrameAt = now }
        if audio, statistics.firstAudioFrameAfter == nil { statistics.firstAudioFrameAfter = now - start }
        if !audio, statistics.firstVideoFrameAfter == nil { statistics.firstVideoFrameAfter = now - start }
        if !audio {
            let shownAt = renderTime(now: now, timestamp: frameTimestamp)
            statistics.videoFramesShown += 1
            if let last = lastVideoFrameAt, shownAt - last > Self.freezeThreshold {
                statistics.freezes += 1
                statistics.freezeTime += shownAt - last
            }
            if statistics.firstVideoFrameAt == nil { statistics.firstVideoFrameAt = shownAt }
            lastVideoFrameAt = shownAt
            statistics.lastVideoFrameAt = shownAt
        }
    }

    /// When a player with a playout delay would show a frame that is complete `now`: at its
    /// media time (RTP timestamp, from the first frame's arrival) plus the delay, or now if it
    /// came later than that — as a browser's jitter buffer holds frames so that a packet resent
    /// within the delay does not show as a freeze. Without a delay, now.
    private func renderTime(now: ContinuousClock.Instant, timestamp: UInt32) -> ContinuousClock.Instant {
        guard playoutDelay > .zero else { return now }
        var extended: Int64 = 0
        if let last = lastFrameTimestamp { extended = last.extended + Int64(Int32(bitPattern: timestamp &- last.timestamp)) }
        lastFrameTimestamp = (extended, timestamp)
        let mediaTime = Duration.seconds(Double(extended) / 90_000)
        let baseline = renderBaseline ?? now - mediaTime
        renderBaseline = baseline
        return max(now, baseline + mediaTime + playoutDelay)
    }

    private func requestKeyFrame(from ssrc: UInt32, now: ContinuousClock.Instant) {
        awaitingKeyFrame = true
        if let lastPLI, now - lastPLI < .milliseconds(200) { return }
        lastPLI = now
        statistics.pictureLossIndicationsSent += 1
        pictureLossIndication(ssrc)
    }
}

import ParleyCodecs
import ParleyRTP

/// Sends a call's media: 20 ms Opus frames of a tone and VP8 frames of a `MovingPattern` at the
/// configured rate, over RTP (RFC 7587, RFC 7741) with the offer's payload types and SSRCs —
/// encoded live, or replayed from shared ``PreEncodedMedia``.
///
/// Timestamps follow the media clocks (48 kHz audio, 90 kHz video) from the sender's own frame
/// counters, not the wall clock nor the replayed loop's position, so a late tick sends the frames
/// it owes with the timestamps they should have had. Replayed audio loops from the start; replayed
/// video starts at a random key frame of the loop (as a live encoder starts with one) and runs on
/// in order, looping. A PLI or FIR for the video SSRC makes the next video frame a key frame: the
/// live encoder is told to make one, a replay skips ahead to the loop's next. abs-send-time, when
/// negotiated, is stamped just before SRTP protection. Codec failures are counted, never thrown.
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
        /// Generic NACKs about our video (RFC 4585 §6.2.1) and the packets they asked for.
        public var nacksReceived = 0
        public var packetsNACKed = 0
        /// Packets sent again for those NACKs (RFC 4588 RTX, when the answer negotiated it).
        public var retransmissionsSent = 0
    }

    public private(set) var statistics = Statistics()

    private let live: LiveMediaEncoder?
    private let library: PreEncodedMedia?
    /// The loop position of the next replayed video frame.
    private var libraryVideoIndex = 0
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
    private var payloads: [VP8RTPPayload] = []
    let videoSSRC: UInt32
    /// The last video packets sent (before SRTP), by sequence number modulo the size, to answer
    /// NACKs with; empty when the client does not resend.
    static let historySize = 128
    private var history: [[UInt8]] = []
    private var historySequences: [UInt16?] = []
    private var historyResentAt: [ContinuousClock.Instant?] = []
    private var resendsPending: [UInt16] = []
    /// Resends are limited as libwebrtc limits them, so that loss in an overloaded network (or
    /// harness) is not answered with more packets: each packet at most once per
    /// ``resendInterval``, and at most ``resendsPerSecond`` in all.
    static let resendInterval: Duration = .milliseconds(100)
    static let resendsPerSecond = 60
    private var resendWindow: (start: ContinuousClock.Instant, count: Int)?

    init(offer: MediaOffer, configuration: MediaClientConfiguration) throws(MediaClientError) {
        if let shared = configuration.sharedMedia {
            library = shared
            live = nil
            libraryVideoIndex = shared.keyFrameIndices.randomElement() ?? 0
        } else {
            library = nil
            live = try LiveMediaEncoder(configuration: configuration)
        }
        audioWriter = RTPPacketWriter(ssrc: offer.audioSSRC, payloadType: offer.audioPayloadType,
                                      midExtensionID: offer.midExtensionID, mid: offer.mids.audio,
                                      absSendTimeExtensionID: offer.absSendTimeExtensionID)
        videoWriter = RTPPacketWriter(ssrc: offer.videoSSRC, payloadType: offer.videoPayloadType,
                                      midExtensionID: offer.midExtensionID, mid: offer.mids.video,
                                      absSendTimeExtensionID: offer.absSendTimeExtensionID)
        do {
            packetizer = try VP8Packetizer(maxPayloadSize: configuration.maxRTPPacketSize - videoWriter.headerSize,
                                           pictureID: UInt16.random(in: 0...0x7fff))
        } catch {
            throw .setup("max RTP packet size \(configuration.maxRTPPacketSize) too small")
        }
        videoSSRC = offer.videoSSRC
        framesPerSecond = configuration.framesPerSecond
        if configuration.resendsOnNACK {
            history = (0..<Self.historySize).map { _ in var slot: [UInt8] = []; slot.reserveCapacity(configuration.maxRTPPacketSize + 16); return slot }
            historySequences = Array(repeating: nil, count: Self.historySize)
            historyResentAt = Array(repeating: nil, count: Self.historySize)
        }
        frameInterval = .seconds(1) / configuration.framesPerSecond
    }

    /// Sends every audio and video frame due by `now`; the first call sets time zero.
    func sendDue(now: ContinuousClock.Instant, transport: SRTPTransport, link: MediaLink) {
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
        case .genericNACK(let nack) where nack.mediaSSRC == videoSSRC:
            statistics.nacksReceived += 1
            let lost = nack.lostSequenceNumbers
            statistics.packetsNACKed += lost.count
            if !history.isEmpty { resendsPending.append(contentsOf: lost) }
        default:
            break
        }
    }

    /// Sends again, as they were, the NACKed video packets still in the history.
    func resendNACKed(transport: SRTPTransport, link: MediaLink) {
        guard !resendsPending.isEmpty else { return }
        let now = ContinuousClock.now
        if resendWindow.map({ now - $0.start >= .seconds(1) }) ?? true { resendWindow = (now, 0) }
        for sequence in resendsPending {
            let slot = Int(sequence) % Self.historySize
            guard historySequences[slot] == sequence, resendWindow!.count < Self.resendsPerSecond else { continue }
            if let last = historyResentAt[slot], now - last < Self.resendInterval { continue }
            historyResentAt[slot] = now
            resendWindow!.count += 1
            transport.sendBuffer.removeAll(keepingCapacity: true)
            transport.sendBuffer.append(contentsOf: history[slot])
            transport.protectAndWrite(rtcp: false, to: link)
            statistics.retransmissionsSent += 1
        }
        resendsPending.removeAll(keepingCapacity: true)
        link.flush()
    }

    private func requestKeyFrame() {
        statistics.keyFrameRequests += 1
        if let library {
            libraryVideoIndex = library.nextKeyFrame(atOrAfter: libraryVideoIndex)
        } else {
            live?.forceKeyFrame()
        }
    }

    private func sendAudioFrame(transport: SRTPTransport, link: MediaLink) {
        let timestamp = audioTimestampBase &+ UInt32(truncatingIfNeeded: audioIndex &* OpusEncoder.samplesPerChannelPerFrame)
        let number = audioIndex
        audioIndex += 1
        let packet: [UInt8]
        if let library {
            packet = library.audioPackets[number % library.audioFrameCount]
        } else if let live, live.encodeAudio() {
            packet = live.opusPacket
        } else {
            statistics.encodeFailures += 1
            return
        }
        packet.withUnsafeBytes {
            audioWriter.write(into: &transport.sendBuffer, timestamp: timestamp, marker: false, payload: $0)
        }
        send(transport: transport, link: link, absSendTimeOffset: audioWriter.absSendTimeOffset)
        statistics.audioFramesSent += 1
    }

    private func sendVideoFrame(transport: SRTPTransport, link: MediaLink) {
        let timestamp = videoTimestampBase &+ UInt32(truncatingIfNeeded: videoIndex &* (90_000 / framesPerSecond))
        let number = videoIndex
        videoIndex += 1
        if let library {
            let frame = library.videoFrames[libraryVideoIndex]
            libraryVideoIndex = (libraryVideoIndex + 1) % library.videoFrameCount
            sendVideo(frame.data, isKeyFrame: frame.isKeyFrame, timestamp: timestamp, transport: transport, link: link)
        } else if let live, live.encodeVideo(frameNumber: number) {
            for frame in live.encoded {
                sendVideo(frame.data, isKeyFrame: frame.isKeyFrame, timestamp: timestamp, transport: transport, link: link)
            }
        } else {
            statistics.encodeFailures += 1
        }
    }

    private func sendVideo(_ frame: [UInt8], isKeyFrame: Bool, timestamp: UInt32, transport: SRTPTransport, link: MediaLink) {
        packetizer.packetize(frame, into: &payloads)
        for payload in payloads {
            payload.bytes.withUnsafeBytes {
                videoWriter.write(into: &transport.sendBuffer, timestamp: timestamp, marker: payload.marker, payload: $0)
            }
            send(transport: transport, link: link, absSendTimeOffset: videoWriter.absSendTimeOffset, keep: !history.isEmpty)
        }
        statistics.videoFramesSent += 1
        if isKeyFrame { statistics.keyFramesSent += 1 }
    }

    private func send(transport: SRTPTransport, link: MediaLink, absSendTimeOffset: Int?, keep: Bool = false) {
        statistics.largestRTPPacket = max(statistics.largestRTPPacket, transport.sendBuffer.count)
        statistics.rtpPacketsSent += 1
        if let absSendTimeOffset {
            AbsSendTime.write(AbsSendTime.value(at: .now), into: &transport.sendBuffer, at: absSendTimeOffset)
        }
        if keep, transport.sendBuffer.count >= 4 {
            let sequence = UInt16(transport.sendBuffer[2]) << 8 | UInt16(transport.sendBuffer[3])
            let slot = Int(sequence) % Self.historySize
            history[slot].removeAll(keepingCapacity: true)
            history[slot].append(contentsOf: transport.sendBuffer)
            historySequences[slot] = sequence
            historyResentAt[slot] = nil
        }
        transport.protectAndWrite(rtcp: false, to: link)
    }
}

/// What a ``MediaReceiver`` got back, decoded and checked.
public struct MediaReceiverStatistics: Sendable, Equatable {
    public var audioPackets = 0
    public var videoPackets = 0
    public var rtcpPackets = 0
    /// Opus packets decoded into 20 ms of PCM.
    public var audioFramesDecoded = 0
    /// VP8 frames decoded into pictures.
    public var videoFramesDecoded = 0
    public var keyFramesDecoded = 0
    /// Time from the receiver's start to the first frame of each kind that passed its check:
    /// decoded, or when not decoding, verified against the shared media.
    public var firstAudioFrameAfter: Duration?
    public var firstVideoFrameAfter: Duration?
    /// When the first frame of either kind passed the check.
    public var firstFrameAt: ContinuousClock.Instant?
    /// Frames whose bytes are exactly one of the shared ``PreEncodedMedia``'s (Opus payloads,
    /// reassembled VP8 frames), and those that are none of them. Zero without shared media.
    public var audioFramesVerified = 0
    public var videoFramesVerified = 0
    public var audioFramesMismatched = 0
    public var videoFramesMismatched = 0
    /// One-way latency of every RTP packet that carried abs-send-time (sender and receiver share
    /// the process's clock).
    public var latency = LatencyHistogram()
    /// RFC 3550 §6.4.1 interarrival jitter of each stream, in seconds: the current estimate.
    public var audioJitter = 0.0
    public var videoJitter = 0.0
    /// Sequence-number gaps (RFC 3550 §A.3): audio counted here, video by the depacketizer.
    public var audioPacketsLost = 0
    public var videoPacketsLost = 0
    /// The tone heard in the last full second of decoded audio, and how many seconds were
    /// measured and how many were more than 10 Hz off the expected frequency.
    public var toneFrequency: Double?
    public var toneWindows = 0
    public var toneWindowsOff = 0
    /// `MovingPattern` frame numbers read from decoded pictures (or, when not decoding, the loop
    /// positions of verified frames): the last one, how many went backwards or repeated —
    /// modulo the shared loop's length when there is one — and how many pictures carried no
    /// readable number.
    public var lastFrameNumber: UInt16?
    public var frameNumberRegressions = 0
    public var unreadableFrameNumbers = 0
    /// PLIs sent because the depacketizer needed a key frame (RFC 4585 §6.3.1).
    public var pictureLossIndicationsSent = 0
    /// Generic NACKs sent (RFC 4585 §6.2.1) and the packets they asked for (asked again counts again).
    public var nacksSent = 0
    public var packetsNACKed = 0
    /// Video packets that came after their gap had been noticed (reordered, or retransmitted) in
    /// time to be used; those that came too late (or twice); gaps given up on.
    public var videoPacketsRecovered = 0
    public var videoPacketsLate = 0
    public var videoPacketsGivenUp = 0
    /// Video frames that passed the check (decoded, or verified and decodable): what a person
    /// would have seen; when the first and last were shown (after the playout delay, if any);
    /// gaps between shown frames over 200 ms.
    public var videoFramesShown = 0
    public var firstVideoFrameAt: ContinuousClock.Instant?
    public var lastVideoFrameAt: ContinuousClock.Instant?
    public var freezes = 0
    public var freezeTime: Duration = .zero
    /// Drops, by reason.
    public var srtpFailures = 0
    /// Packets SRTP had already seen (RFC 3711 §3.3.2 replay check): duplicates, not failures.
    public var duplicatePackets = 0
    public var malformedPackets = 0
    public var unknownPayloadTypes = 0
    /// Video packets that came as RTX (RFC 4588), unwrapped and taken as the video they repair.
    public var videoRetransmissionsReceived = 0
    public var audioOutOfOrder = 0
    public var opusDecodeFailures = 0
    public var vp8PayloadsDropped = 0
    public var vp8DecodeFailures = 0
    /// Delta frames skipped while waiting for a key frame.
    public var framesAwaitingKeyFrame = 0

    public init() {}

    /// Every frame that failed a check: decode failures, byte mismatches, unreadable frame
    /// numbers and frame-number regressions.
    public var decodeFailures: Int {
        opusDecodeFailures + vp8DecodeFailures + audioFramesMismatched + videoFramesMismatched
            + unreadableFrameNumbers + frameNumberRegressions
    }
}

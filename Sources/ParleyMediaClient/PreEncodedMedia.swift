import ParleyCodecs

/// A call's media encoded once — Opus (RFC 6716) of the configured tone and VP8 (RFC 6386) of a
/// `MovingPattern` — for many ``MediaClient``s in one process to replay, so a load test with
/// hundreds of senders runs libopus and libvpx once, not per client. Receivers recognise every
/// frame by a hash of its bytes (``FNV1a/wordHash(_:)``), so they can check delivery byte for
/// byte without decoding.
///
/// Audio: `seconds` × 50 frames of 20 ms. The tone's phase runs on across the loop's seam when
/// frequency × seconds is whole (any whole number of Hz), and the loop is encoded twice, keeping
/// the second pass, so the encoder state at its start is the state its end leaves.
/// Video: `seconds` × fps frames numbered 0..<count, a key frame forced every fps frames (so the
/// loop starts with one), at the configured size and bitrate.
///
/// Immutable once built; share one instance freely across tasks.
public final class PreEncodedMedia: Sendable {
    struct VideoFrame: Sendable {
        let data: [UInt8]
        let isKeyFrame: Bool
    }

    /// VP8 frames in the loop; frame `i` shows `MovingPattern` number `i`.
    public let videoFrameCount: Int
    /// Opus packets in the loop.
    public let audioFrameCount: Int
    let audioPackets: [[UInt8]]
    let videoFrames: [VideoFrame]
    /// Indices of the key frames, ascending.
    let keyFrameIndices: [Int]
    private let audioIndexByHash: [UInt64: Int]
    private let videoIndexByHash: [UInt64: Int]
    /// What the media was made with: a client replaying it must be configured alike.
    let toneFrequency: Double
    let videoSize: (width: Int, height: Int)
    let framesPerSecond: Int

    /// Encodes the loop; takes a few seconds of CPU for the default 10 s of 320×240.
    /// - Parameter seconds: length of the loop, 1…600 (frame numbers must fit in 16 bits).
    public init(configuration: MediaClientConfiguration, seconds: Int = 10) throws(MediaClientError) {
        let fps = configuration.framesPerSecond
        guard (1...600).contains(seconds), seconds * fps <= 1 << MovingPattern.bitCount else {
            throw .setup("a \(seconds) s loop at \(fps) fps")
        }
        let audio = try Self.encodeAudio(tone: configuration.toneFrequency, frames: seconds * 50)
        let video = try Self.encodeVideo(configuration, frames: seconds * fps)
        audioPackets = audio
        videoFrames = video
        audioFrameCount = audio.count
        videoFrameCount = video.count
        keyFrameIndices = video.indices.filter { video[$0].isKeyFrame }
        audioIndexByHash = Self.index(audio)
        videoIndexByHash = Self.index(video.map(\.data))
        toneFrequency = configuration.toneFrequency
        videoSize = (configuration.videoWidth, configuration.videoHeight)
        framesPerSecond = fps
    }

    /// Whether a client with `configuration` can replay this media as its own.
    func matches(_ configuration: MediaClientConfiguration) -> Bool {
        configuration.toneFrequency == toneFrequency && configuration.framesPerSecond == framesPerSecond
            && configuration.videoWidth == videoSize.width && configuration.videoHeight == videoSize.height
    }

    /// The loop position of the Opus packet with exactly these bytes, if it is one of ours.
    func audioIndex(of packet: [UInt8]) -> Int? {
        audioIndexByHash[FNV1a.wordHash(packet)]
    }

    /// The loop position of the VP8 frame with exactly these bytes, if it is one of ours.
    func videoIndex(of frame: [UInt8]) -> Int? {
        videoIndexByHash[FNV1a.wordHash(frame)]
    }

    /// The first key frame at or after `index`, wrapping round the loop.
    func nextKeyFrame(atOrAfter index: Int) -> Int {
        keyFrameIndices.first { $0 >= index } ?? keyFrameIndices.first ?? 0
    }

    private static func encodeAudio(tone frequency: Double, frames: Int) throws(MediaClientError) -> [[UInt8]] {
        let encoder: OpusEncoder
        do { encoder = try OpusEncoder(channels: 1, bitrate: 32_000) } catch { throw .setup("encoder: \(error)") }
        var packets: [[UInt8]] = []
        packets.reserveCapacity(frames)
        for pass in 0..<2 {
            var tone = TonePCM(frequency: frequency)
            var pcm: [Int16] = []
            for _ in 0..<frames {
                tone.nextFrame(into: &pcm)
                let packet: [UInt8]
                do { packet = try encoder.encode(pcm) } catch { throw .setup("Opus: \(error)") }
                if pass == 1 { packets.append(packet) }
            }
        }
        return packets
    }

    private static func encodeVideo(_ configuration: MediaClientConfiguration, frames: Int) throws(MediaClientError) -> [VideoFrame] {
        guard let pattern = MovingPattern(width: configuration.videoWidth, height: configuration.videoHeight) else {
            throw .setup("video size \(configuration.videoWidth)×\(configuration.videoHeight) cannot carry frame numbers")
        }
        let encoder: VP8Encoder
        do {
            encoder = try VP8Encoder(VP8EncoderConfiguration(
                width: configuration.videoWidth, height: configuration.videoHeight,
                targetBitrateKbps: configuration.videoBitrateKbps, framesPerSecond: configuration.framesPerSecond))
        } catch {
            throw .setup("encoder: \(error)")
        }
        var picture = I420Frame(width: configuration.videoWidth, height: configuration.videoHeight)
        var encoded: [VP8EncodedFrame] = []
        var library: [VideoFrame] = []
        library.reserveCapacity(frames)
        for number in 0..<frames {
            if number % configuration.framesPerSecond == 0 { encoder.forceKeyFrame() }
            pattern.render(frameNumber: number, into: &picture)
            do { try encoder.encode(picture, into: &encoded) } catch { throw .setup("VP8: \(error)") }
            // The realtime profile never drops a frame (rc_dropframe_thresh 0): one in, one out.
            guard encoded.count == 1 else { throw .setup("VP8 encoder gave \(encoded.count) frames for frame \(number)") }
            library.append(VideoFrame(data: encoded[0].data, isKeyFrame: encoded[0].isKeyFrame))
        }
        return library
    }

    /// Hash → first position with those bytes.
    private static func index(_ items: [[UInt8]]) -> [UInt64: Int] {
        var index: [UInt64: Int] = [:]
        for (position, bytes) in items.enumerated() where index[FNV1a.wordHash(bytes)] == nil {
            index[FNV1a.wordHash(bytes)] = position
        }
        return index
    }
}

import ParleyCodecs

/// A sender's own encoders, for when it has no ``PreEncodedMedia``: each 20 ms of the tone
/// through libopus and each `MovingPattern` frame through libvpx as it falls due. PCM, picture
/// and output buffers are reused across frames.
final class LiveMediaEncoder {
    private let audioEncoder: OpusEncoder
    private let videoEncoder: VP8Encoder
    private let pattern: MovingPattern
    private var tone: TonePCM
    private var pcm: [Int16] = []
    private var picture: I420Frame
    /// The last ``encodeAudio()``'s packet.
    private(set) var opusPacket: [UInt8] = []
    /// The last ``encodeVideo(frameNumber:)``'s frames (normally one).
    private(set) var encoded: [VP8EncodedFrame] = []

    init(configuration: MediaClientConfiguration) throws(MediaClientError) {
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
        picture = I420Frame(width: configuration.videoWidth, height: configuration.videoHeight)
        opusPacket.reserveCapacity(OpusEncoder.maxPacketSize)
    }

    /// Encodes the next 20 ms of the tone into ``opusPacket``; false if libopus failed.
    func encodeAudio() -> Bool {
        tone.nextFrame(into: &pcm)
        do { try audioEncoder.encode(pcm, into: &opusPacket) } catch { return false }
        return true
    }

    /// Encodes pattern frame `number` into ``encoded``; false if libvpx failed.
    func encodeVideo(frameNumber number: Int) -> Bool {
        pattern.render(frameNumber: number, into: &picture)
        do { try videoEncoder.encode(picture, into: &encoded) } catch { return false }
        return true
    }

    /// Makes the next video frame a key frame.
    func forceKeyFrame() { videoEncoder.forceKeyFrame() }
}

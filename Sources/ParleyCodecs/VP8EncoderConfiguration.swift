/// Settings for a `VP8Encoder`: a realtime, constant-bitrate profile like WebRTC's.
public struct VP8EncoderConfiguration: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Target bitrate in kbit/s (`rc_target_bitrate`).
    public var targetBitrateKbps: Int
    /// Frames per second; the RTP clock for video is 90 kHz (RFC 7741 §4.1), pts here count frames.
    public var framesPerSecond: Int
    /// At most this many frames between key frames (`kf_max_dist`); 0 disables automatic key frames.
    public var keyFrameInterval: Int
    /// libvpx `VP8E_SET_CPUUSED`: -16…16; larger magnitude is faster. Realtime WebRTC uses about -6.
    public var cpuUsed: Int
    /// Encoder threads (`g_threads`).
    public var threads: Int
    /// Ask for error-resilient coding (`VPX_ERROR_RESILIENT_DEFAULT`), as WebRTC does for loss.
    public var errorResilient: Bool

    public init(
        width: Int, height: Int, targetBitrateKbps: Int = 1_000, framesPerSecond: Int = 30,
        keyFrameInterval: Int = 3_000, cpuUsed: Int = -6, threads: Int = 1, errorResilient: Bool = true
    ) {
        self.width = width
        self.height = height
        self.targetBitrateKbps = targetBitrateKbps
        self.framesPerSecond = framesPerSecond
        self.keyFrameInterval = keyFrameInterval
        self.cpuUsed = cpuUsed
        self.threads = threads
        self.errorResilient = errorResilient
    }

    func validate() throws(VP8CodecError) {
        guard (1...16_383).contains(width), (1...16_383).contains(height) else {
            throw .invalidArgument("size \(width)×\(height) outside 1…16383 (RFC 6386 §9.1: 14-bit fields)")
        }
        guard (1...100_000).contains(targetBitrateKbps) else { throw .invalidArgument("bitrate \(targetBitrateKbps) kbps") }
        guard (1...240).contains(framesPerSecond) else { throw .invalidArgument("fps \(framesPerSecond)") }
        guard keyFrameInterval >= 0 else { throw .invalidArgument("keyFrameInterval \(keyFrameInterval)") }
        guard (-16...16).contains(cpuUsed) else { throw .invalidArgument("cpuUsed \(cpuUsed)") }
        guard (1...64).contains(threads) else { throw .invalidArgument("threads \(threads)") }
    }
}

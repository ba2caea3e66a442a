internal import COpus
internal import CParleyCodecShim

/// An Opus encoder (RFC 6716) at 48 kHz with 20 ms frames — what WebRTC negotiates as
/// `opus/48000/2` (RFC 7587). Takes interleaved Int16 PCM, returns one Opus packet per frame.
///
/// In-band FEC and DTX are off unless asked for. One instance per stream; not thread-safe.
public final class OpusEncoder {
    /// What the encoder tunes for (`OPUS_APPLICATION_*`).
    public enum Application: Sendable {
        /// Speech intelligibility (`OPUS_APPLICATION_VOIP`).
        case voip
        /// Faithful music and tones (`OPUS_APPLICATION_AUDIO`).
        case audio
        /// Lowest delay (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`).
        case restrictedLowDelay
    }

    /// 48 kHz, the Opus RTP clock rate (RFC 7587 §4.1).
    public static let sampleRate = 48_000
    /// 20 ms at 48 kHz.
    public static let samplesPerChannelPerFrame = 960
    /// RFC 6716 §3.2.1: a single frame is at most 1275 bytes; a whole packet fits in this.
    public static let maxPacketSize = 1_500

    /// 1 (mono) or 2 (stereo, interleaved L R L R …).
    public let channels: Int
    /// Samples one `encode` call takes: 960 × channels.
    public var samplesPerFrame: Int { Self.samplesPerChannelPerFrame * channels }

    private let state: OpaquePointer
    private var scratch: [UInt8]

    /// - Parameters:
    ///   - channels: 1 or 2.
    ///   - bitrate: bits per second (libopus accepts 500…512 000); `nil` leaves libopus's automatic choice.
    ///   - application: the `OPUS_APPLICATION_*` mode.
    ///   - inbandFEC: RFC 6716 §2.1.7 LBRR frames; off by default.
    ///   - dtx: discontinuous transmission; off by default.
    public init(
        channels: Int = 1, bitrate: Int? = 32_000, application: Application = .audio,
        inbandFEC: Bool = false, dtx: Bool = false
    ) throws(OpusCodecError) {
        guard channels == 1 || channels == 2 else {
            throw .invalidArgument("channels must be 1 or 2, got \(channels)")
        }
        let app: Int32 = switch application {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
        var error: Int32 = OPUS_OK
        guard let state = opus_encoder_create(Int32(Self.sampleRate), Int32(channels), app, &error),
              error == OPUS_OK
        else { throw OpusDecoder.libraryError(error) }
        self.state = state
        self.channels = channels
        self.scratch = [UInt8](repeating: 0, count: Self.maxPacketSize)
        try check(parley_opus_encoder_set_inband_fec(state, inbandFEC ? 1 : 0))
        try check(parley_opus_encoder_set_dtx(state, dtx ? 1 : 0))
        if let bitrate { try setBitrate(bitrate) }
    }

    deinit { opus_encoder_destroy(state) }

    /// Sets the target bitrate in bits per second (`OPUS_SET_BITRATE`).
    public func setBitrate(_ bitsPerSecond: Int) throws(OpusCodecError) {
        guard (500...512_000).contains(bitsPerSecond) else {
            throw .invalidArgument("bitrate \(bitsPerSecond) outside 500…512000")
        }
        try check(parley_opus_encoder_set_bitrate(state, Int32(bitsPerSecond)))
    }

    /// The bitrate libopus is aiming for (`OPUS_GET_BITRATE`).
    public var bitrate: Int {
        var value: Int32 = 0
        _ = parley_opus_encoder_get_bitrate(state, &value)
        return Int(value)
    }

    /// Sets the expected loss in percent (`OPUS_SET_PACKET_LOSS_PERC`); matters only with FEC on.
    public func setExpectedPacketLoss(percent: Int) throws(OpusCodecError) {
        try check(parley_opus_encoder_set_packet_loss_perc(state, Int32(clamping: percent)))
    }

    /// Encodes one 20 ms frame of interleaved PCM into `packet`, replacing its contents and reusing
    /// its storage. Returns the packet length (1 or 2 bytes means silence/DTX).
    @discardableResult
    public func encode(_ pcm: [Int16], into packet: inout [UInt8]) throws(OpusCodecError) -> Int {
        guard pcm.count == samplesPerFrame else {
            throw .invalidArgument("expected \(samplesPerFrame) samples (20 ms × \(channels) ch), got \(pcm.count)")
        }
        let count = pcm.withUnsafeBufferPointer { input in
            scratch.withUnsafeMutableBufferPointer { out in
                opus_encode(state, input.baseAddress!, Int32(Self.samplesPerChannelPerFrame),
                            out.baseAddress!, Int32(out.count))
            }
        }
        guard count >= 0 else { throw OpusDecoder.libraryError(count) }
        packet.removeAll(keepingCapacity: true)
        packet.append(contentsOf: scratch[0..<Int(count)])
        return Int(count)
    }

    /// Encodes one 20 ms frame and returns a new packet.
    public func encode(_ pcm: [Int16]) throws(OpusCodecError) -> [UInt8] {
        var packet: [UInt8] = []
        packet.reserveCapacity(Self.maxPacketSize)
        try encode(pcm, into: &packet)
        return packet
    }

    private func check(_ result: Int32) throws(OpusCodecError) {
        if result != OPUS_OK { throw OpusDecoder.libraryError(result) }
    }
}

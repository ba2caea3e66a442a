internal import COpus
internal import CParleyCodecShim

/// An Opus decoder (RFC 6716) at 48 kHz producing interleaved Int16 PCM.
///
/// Packets are validated (RFC 6716 §3.4, via `opus_packet_get_nb_samples`) before decoding, so a
/// malformed packet is an `OpusCodecError`, never a crash. One instance per stream; not thread-safe.
public final class OpusDecoder {
    /// 48 kHz (RFC 7587 §4.1).
    public static let sampleRate = 48_000
    /// RFC 6716 §3.2.5: a packet carries at most 120 ms = 5760 samples per channel.
    public static let maxSamplesPerChannel = 5_760

    /// 1 or 2.
    public let channels: Int

    private let state: OpaquePointer
    private var lastFrameSize = 960

    public init(channels: Int = 1) throws(OpusCodecError) {
        guard channels == 1 || channels == 2 else {
            throw .invalidArgument("channels must be 1 or 2, got \(channels)")
        }
        var error: Int32 = OPUS_OK
        guard let state = opus_decoder_create(Int32(Self.sampleRate), Int32(channels), &error),
              error == OPUS_OK
        else { throw Self.libraryError(error) }
        self.state = state
        self.channels = channels
    }

    deinit { opus_decoder_destroy(state) }

    /// Decodes one packet into `pcm` (interleaved), replacing its contents and reusing its storage.
    /// Returns the number of samples per channel (960 for a 20 ms packet).
    @discardableResult
    public func decode(_ packet: [UInt8], into pcm: inout [Int16]) throws(OpusCodecError) -> Int {
        guard !packet.isEmpty else { throw .emptyPacket }
        guard packet.count <= Int(Int32.max) else { throw .invalidArgument("packet too large") }
        let expected = packet.withUnsafeBufferPointer {
            opus_packet_get_nb_samples($0.baseAddress!, Int32($0.count), Int32(Self.sampleRate))
        }
        guard expected > 0 else { throw Self.libraryError(expected < 0 ? expected : OPUS_INVALID_PACKET) }
        guard expected <= Self.maxSamplesPerChannel else { throw Self.libraryError(OPUS_INVALID_PACKET) }
        let decoded = try decode(packet, frameSize: Int(expected), into: &pcm)
        lastFrameSize = decoded
        return decoded
    }

    /// Decodes one packet and returns new PCM.
    public func decode(_ packet: [UInt8]) throws(OpusCodecError) -> [Int16] {
        var pcm: [Int16] = []
        try decode(packet, into: &pcm)
        return pcm
    }

    /// Packet loss concealment (RFC 6716 §4.4): synthesises the length of the last packet.
    @discardableResult
    public func decodeLoss(into pcm: inout [Int16]) throws(OpusCodecError) -> Int {
        try decode(nil, frameSize: lastFrameSize, into: &pcm)
    }

    /// Forgets all history (`OPUS_RESET_STATE`), e.g. after an SSRC change.
    public func reset() { _ = parley_opus_decoder_reset_state(state) }

    private func decode(_ packet: [UInt8]?, frameSize: Int, into pcm: inout [Int16]) throws(OpusCodecError) -> Int {
        let needed = frameSize * channels
        if pcm.count != needed {
            // Only reallocates when the frame size changes; steady state keeps the buffer.
            if pcm.count > needed { pcm.removeLast(pcm.count - needed) } else {
                pcm.append(contentsOf: repeatElement(0, count: needed - pcm.count))
            }
        }
        let result: Int32 = pcm.withUnsafeMutableBufferPointer { out in
            if let packet {
                return packet.withUnsafeBufferPointer {
                    opus_decode(state, $0.baseAddress!, Int32($0.count), out.baseAddress!, Int32(frameSize), 0)
                }
            }
            return opus_decode(state, nil, 0, out.baseAddress!, Int32(frameSize), 0)
        }
        guard result >= 0 else { throw Self.libraryError(result) }
        if Int(result) != frameSize { pcm.removeLast((frameSize - Int(result)) * channels) }
        return Int(result)
    }

    static func libraryError(_ code: Int32) -> OpusCodecError {
        let message = opus_strerror(code).map { String(cString: $0) } ?? "unknown"
        return .library(code: code, message: message)
    }
}

/// One compressed VP8 frame (RFC 6386) as the encoder emits it: what goes into RTP (RFC 7741).
public struct VP8EncodedFrame: Sendable, Equatable {
    /// The VP8 bitstream of the frame, starting with its frame tag (RFC 6386 §9.1).
    public var data: [UInt8]
    /// An intra frame (`VPX_FRAME_IS_KEY`): a decoder can start here.
    public var isKeyFrame: Bool
    /// Presentation time in frames, as passed to `encode`.
    public var pts: Int64

    public init(data: [UInt8], isKeyFrame: Bool, pts: Int64) {
        self.data = data
        self.isKeyFrame = isKeyFrame
        self.pts = pts
    }

    /// Whether a VP8 bitstream starts with a key frame: the frame tag's bit 0 is the inverse key
    /// frame flag (RFC 6386 §9.1), and key frames carry the start code 9d 01 2a.
    public static func isKeyFrame(_ bitstream: [UInt8]) -> Bool {
        bitstream.count >= 10 && bitstream[0] & 0x01 == 0
            && bitstream[3] == 0x9d && bitstream[4] == 0x01 && bitstream[5] == 0x2a
    }
}

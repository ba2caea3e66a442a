internal import CVPX
internal import CParleyCodecShim

/// A VP8 decoder (RFC 6386) over libvpx: one whole compressed frame in, one I420 picture out.
///
/// Empty input, data libvpx rejects, inter frames before any key frame and pictures libvpx marks
/// corrupt all come back as `VP8CodecError`. The codec context lives in memory this class allocates.
/// One instance per stream; not thread-safe.
public final class VP8Decoder {
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>

    /// - Parameter threads: decoder threads (`vpx_codec_dec_cfg_t.threads`).
    public init(threads: Int = 1) throws(VP8CodecError) {
        guard (1...64).contains(threads) else { throw .invalidArgument("threads \(threads)") }
        let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        var cfg = vpx_codec_dec_cfg_t(threads: UInt32(threads), w: 0, h: 0)
        let status = parley_vpx_codec_dec_init(context, vpx_codec_vp8_dx(), &cfg, 0)
        guard status == VPX_CODEC_OK else {
            let failure = VP8Encoder.error(status, context)
            context.deallocate()
            throw failure
        }
        self.context = context
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Decodes one whole frame into `picture`, resizing it only when the stream's size changes.
    public func decode(_ frame: [UInt8], into picture: inout I420Frame) throws(VP8CodecError) {
        guard !frame.isEmpty else { throw .emptyFrame }
        guard frame.count <= Int(UInt32.max) else { throw .invalidArgument("frame too large") }
        let status = frame.withUnsafeBufferPointer {
            vpx_codec_decode(context, $0.baseAddress, UInt32($0.count), nil, 0)
        }
        guard status == VPX_CODEC_OK else { throw VP8Encoder.error(status, context) }
        var corrupted: Int32 = 0
        if parley_vpx_codec_control_get_int(context, Int32(VP8D_GET_FRAME_CORRUPTED.rawValue), &corrupted) == VPX_CODEC_OK,
           corrupted != 0 {
            throw .corruptPicture
        }
        var iterator: vpx_codec_iter_t? = nil
        guard let image = vpx_codec_get_frame(context, &iterator) else { throw .noPicture }
        // Drain anything else so the next call starts clean (VP8 emits at most one picture per frame).
        while vpx_codec_get_frame(context, &iterator) != nil {}
        try copy(image.pointee, into: &picture)
    }

    /// Decodes one whole frame into a new picture.
    public func decode(_ frame: [UInt8]) throws(VP8CodecError) -> I420Frame {
        var picture = I420Frame(width: 1, height: 1)
        try decode(frame, into: &picture)
        return picture
    }

    private func copy(_ image: vpx_image_t, into picture: inout I420Frame) throws(VP8CodecError) {
        guard image.fmt == VPX_IMG_FMT_I420, image.d_w > 0, image.d_h > 0,
              let py = image.planes.0, let pu = image.planes.1, let pv = image.planes.2
        else { throw .noPicture }
        picture.resize(width: Int(image.d_w), height: Int(image.d_h))
        let cw = picture.chromaWidth, ch = picture.chromaHeight, w = picture.width, h = picture.height
        Self.copyPlane(py, stride: Int(image.stride.0), width: w, height: h, into: &picture.y)
        Self.copyPlane(pu, stride: Int(image.stride.1), width: cw, height: ch, into: &picture.u)
        Self.copyPlane(pv, stride: Int(image.stride.2), width: cw, height: ch, into: &picture.v)
    }

    private static func copyPlane(_ source: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int,
                                  into plane: inout [UInt8]) {
        plane.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                (out.baseAddress! + row * width).update(from: source + row * stride, count: width)
            }
        }
    }
}

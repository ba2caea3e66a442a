internal import CVPX
internal import CParleyCodecShim

/// A VP8 encoder (RFC 6386) over libvpx in realtime CBR mode: I420 frames in, compressed frames out.
///
/// The codec context, configuration and input image live in memory this class allocates (libvpx
/// keeps pointers into them), and are reused for every frame. One instance per stream; not thread-safe.
public final class VP8Encoder {
    public let configuration: VP8EncoderConfiguration

    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>
    private let image: UnsafeMutablePointer<vpx_image_t>
    private var keyFrameRequested = false
    private var nextPTS: Int64 = 0

    public init(_ configuration: VP8EncoderConfiguration) throws(VP8CodecError) {
        try configuration.validate()
        // Everything that can fail happens before the stored properties are set, so a throw
        // never reaches `deinit` with half-built libvpx state.
        (context, config, image) = try Self.open(configuration)
        self.configuration = configuration
    }

    private static func open(_ configuration: VP8EncoderConfiguration) throws(VP8CodecError) -> (
        UnsafeMutablePointer<vpx_codec_ctx_t>, UnsafeMutablePointer<vpx_codec_enc_cfg_t>, UnsafeMutablePointer<vpx_image_t>
    ) {
        let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        let cfg = UnsafeMutablePointer<vpx_codec_enc_cfg_t>.allocate(capacity: 1)
        cfg.initialize(to: vpx_codec_enc_cfg_t())
        let image = UnsafeMutablePointer<vpx_image_t>.allocate(capacity: 1)
        image.initialize(to: vpx_image_t())
        var initialised = false, imageAllocated = false
        func fail(_ error: VP8CodecError) -> VP8CodecError {
            if imageAllocated { vpx_img_free(image) }
            free(context, cfg, image, initialised: initialised)
            return error
        }

        var status = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0)
        guard status == VPX_CODEC_OK else { throw fail(error(status, nil)) }
        cfg.pointee.g_w = UInt32(configuration.width)
        cfg.pointee.g_h = UInt32(configuration.height)
        cfg.pointee.g_timebase = vpx_rational(num: 1, den: Int32(configuration.framesPerSecond))
        cfg.pointee.g_threads = UInt32(configuration.threads)
        cfg.pointee.g_lag_in_frames = 0  // realtime: one frame in, one frame out
        cfg.pointee.g_error_resilient = configuration.errorResilient ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        cfg.pointee.rc_end_usage = VPX_CBR
        cfg.pointee.rc_target_bitrate = UInt32(configuration.targetBitrateKbps)
        cfg.pointee.rc_min_quantizer = 2
        cfg.pointee.rc_max_quantizer = 56
        cfg.pointee.rc_undershoot_pct = 100
        cfg.pointee.rc_overshoot_pct = 15
        cfg.pointee.rc_buf_initial_sz = 500
        cfg.pointee.rc_buf_optimal_sz = 600
        cfg.pointee.rc_buf_sz = 1_000
        cfg.pointee.rc_dropframe_thresh = 0
        if configuration.keyFrameInterval > 0 {
            cfg.pointee.kf_mode = VPX_KF_AUTO
            cfg.pointee.kf_min_dist = 0
            cfg.pointee.kf_max_dist = UInt32(configuration.keyFrameInterval)
        } else {
            cfg.pointee.kf_mode = VPX_KF_DISABLED
        }

        status = parley_vpx_codec_enc_init(context, vpx_codec_vp8_cx(), cfg, 0)
        guard status == VPX_CODEC_OK else { throw fail(error(status, context)) }
        initialised = true
        guard vpx_img_alloc(image, VPX_IMG_FMT_I420, UInt32(configuration.width), UInt32(configuration.height), 16) != nil else {
            throw fail(.invalidArgument("vpx_img_alloc failed"))
        }
        imageAllocated = true
        for (control, value) in [(Int32(VP8E_SET_CPUUSED.rawValue), configuration.cpuUsed),
                                 (Int32(VP8E_SET_NOISE_SENSITIVITY.rawValue), 0),
                                 (Int32(VP8E_SET_TOKEN_PARTITIONS.rawValue), 0)] {
            status = parley_vpx_codec_control_int(context, control, Int32(value))
            guard status == VPX_CODEC_OK else { throw fail(error(status, context)) }
        }
        return (context, cfg, image)
    }

    deinit {
        vpx_img_free(image)
        Self.free(context, config, image, initialised: true)
    }

    /// Makes the next encoded frame a key frame (e.g. on an RTCP PLI, RFC 4585 §6.3.1, or FIR, RFC 5104 §4.3.1).
    public func forceKeyFrame() { keyFrameRequested = true }

    /// Changes the target bitrate on the fly (e.g. from REMB or transport-wide feedback).
    public func setTargetBitrate(kbps: Int) throws(VP8CodecError) {
        guard (1...100_000).contains(kbps) else { throw .invalidArgument("bitrate \(kbps) kbps") }
        config.pointee.rc_target_bitrate = UInt32(kbps)
        let status = vpx_codec_enc_config_set(context, config)
        guard status == VPX_CODEC_OK else { throw Self.error(status, context) }
    }

    /// Encodes one frame with the realtime deadline. Results replace `output`'s contents, reusing the
    /// array's and its elements' storage; returns how many frames came out (normally 1; 0 if
    /// the rate controller dropped the frame).
    @discardableResult
    public func encode(_ frame: I420Frame, into output: inout [VP8EncodedFrame]) throws(VP8CodecError) -> Int {
        guard frame.width == configuration.width, frame.height == configuration.height, frame.isWellFormed else {
            throw .frameMismatch(expectedWidth: configuration.width, expectedHeight: configuration.height,
                                 width: frame.width, height: frame.height)
        }
        copyIntoImage(frame)
        let flags: vpx_enc_frame_flags_t = keyFrameRequested ? vpx_enc_frame_flags_t(parley_VPX_EFLAG_FORCE_KF) : 0
        keyFrameRequested = false
        let pts = nextPTS
        nextPTS += 1
        let status = vpx_codec_encode(context, image, pts, 1, flags, parley_VPX_DL_REALTIME)
        guard status == VPX_CODEC_OK else { throw Self.error(status, context) }

        var produced = 0
        var iterator: vpx_codec_iter_t? = nil
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let f = packet.pointee.data.frame
            let bytes = UnsafeRawBufferPointer(start: f.buf, count: f.sz)
            let isKey = f.flags & parley_VPX_FRAME_IS_KEY != 0
            if produced < output.count {
                output[produced].data.removeAll(keepingCapacity: true)
                output[produced].data.append(contentsOf: bytes)
                output[produced].isKeyFrame = isKey
                output[produced].pts = f.pts
            } else {
                output.append(VP8EncodedFrame(data: Array(bytes), isKeyFrame: isKey, pts: f.pts))
            }
            produced += 1
        }
        if output.count > produced { output.removeLast(output.count - produced) }
        return produced
    }

    /// Encodes one frame and returns new compressed frames.
    public func encode(_ frame: I420Frame) throws(VP8CodecError) -> [VP8EncodedFrame] {
        var output: [VP8EncodedFrame] = []
        try encode(frame, into: &output)
        return output
    }

    private func copyIntoImage(_ frame: I420Frame) {
        let img = image.pointee
        Self.copyPlane(frame.y, width: frame.width, height: frame.height, to: img.planes.0, stride: Int(img.stride.0))
        Self.copyPlane(frame.u, width: frame.chromaWidth, height: frame.chromaHeight, to: img.planes.1, stride: Int(img.stride.1))
        Self.copyPlane(frame.v, width: frame.chromaWidth, height: frame.chromaHeight, to: img.planes.2, stride: Int(img.stride.2))
    }

    private static func copyPlane(_ source: [UInt8], width: Int, height: Int,
                                  to destination: UnsafeMutablePointer<UInt8>?, stride: Int) {
        guard let destination else { return }
        source.withUnsafeBufferPointer { src in
            for row in 0..<height {
                (destination + row * stride).update(from: src.baseAddress! + row * width, count: width)
            }
        }
    }

    private static func free(_ context: UnsafeMutablePointer<vpx_codec_ctx_t>, _ config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>,
                             _ image: UnsafeMutablePointer<vpx_image_t>, initialised: Bool) {
        if initialised { vpx_codec_destroy(context) }
        context.deallocate()
        config.deallocate()
        image.deallocate()
    }

    static func error(_ status: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?) -> VP8CodecError {
        var message = vpx_codec_err_to_string(status).map { String(cString: $0) } ?? "unknown"
        if let context, let detail = vpx_codec_error_detail(context) { message += ": " + String(cString: detail) }
        return .library(code: Int32(bitPattern: status.rawValue), message: message)
    }
}

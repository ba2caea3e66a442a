/// A planar YUV 4:2:0 image (I420): a full-size luma plane, then Cb and Cr at half resolution,
/// each plane tightly packed (stride = plane width). The layout VP8 codes (RFC 6386 §2).
public struct I420Frame: Equatable, Sendable {
    public private(set) var width: Int
    public private(set) var height: Int
    /// Luma, `width × height` bytes.
    public var y: [UInt8]
    /// Cb, `chromaWidth × chromaHeight` bytes.
    public var u: [UInt8]
    /// Cr, `chromaWidth × chromaHeight` bytes.
    public var v: [UInt8]

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// A frame filled with `luma` and neutral chroma (128). Dimensions are clamped to at least 1
    /// so that no plane is empty.
    public init(width: Int, height: Int, luma: UInt8 = 16) {
        self.width = max(1, width)
        self.height = max(1, height)
        let cw = (self.width + 1) / 2, ch = (self.height + 1) / 2
        y = [UInt8](repeating: luma, count: self.width * self.height)
        u = [UInt8](repeating: 128, count: cw * ch)
        v = [UInt8](repeating: 128, count: cw * ch)
    }

    /// Changes the dimensions, reallocating only when they differ. Contents are unspecified afterwards.
    public mutating func resize(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        self = I420Frame(width: width, height: height)
    }

    /// Whether the planes have the sizes the dimensions call for.
    public var isWellFormed: Bool {
        y.count == width * height && u.count == chromaWidth * chromaHeight && v.count == u.count
    }

    /// FNV-1a over the three planes: compares decoded images without keeping them.
    public var checksum: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for plane in [y, u, v] {
            for byte in plane { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return hash
    }
}

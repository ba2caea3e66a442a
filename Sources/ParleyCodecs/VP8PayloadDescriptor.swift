/// The VP8 payload descriptor that starts every VP8 RTP payload (RFC 7741 §4.2):
///
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (required)
///      +-+-+-+-+-+-+-+-+
///   X: |I|L|T|K| RSV   | (optional)
///      +-+-+-+-+-+-+-+-+
///   I: |M| PictureID   | (optional; M=1: 15-bit PictureID over two octets)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   |
///      +-+-+-+-+-+-+-+-+
///   L: |   TL0PICIDX   | (optional)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (optional)
///      +-+-+-+-+-+-+-+-+
///
/// The X octet is written only when one of I/L/T/K is present. Reserved bits are written as zero
/// and ignored on parsing (§4.2: "MUST be ignored by the receiver").
public struct VP8PayloadDescriptor: Equatable, Sendable {
    /// A PictureID in its wire form: 7 bits (M=0) or 15 bits (M=1).
    public enum PictureID: Equatable, Sendable {
        case short(UInt8)
        case long(UInt16)

        /// The numeric value (0…127 or 0…32767).
        public var value: UInt16 {
            switch self {
            case .short(let v): UInt16(v & 0x7f)
            case .long(let v): v & 0x7fff
            }
        }
    }

    /// N: the frame is not used as a reference and may be discarded.
    public var nonReference: Bool
    /// S: the payload starts a VP8 partition; set on the first packet of every frame.
    public var startOfPartition: Bool
    /// PID: the partition index (0…7) the payload's first byte belongs to.
    public var partitionIndex: UInt8
    /// I: the PictureID.
    public var pictureID: PictureID?
    /// L: TL0PICIDX, the running index of the temporal base layer.
    public var tl0PicIdx: UInt8?
    /// T: the temporal layer index (0…3).
    public var temporalLayerID: UInt8?
    /// Y: layer sync bit; meaningful only with T.
    public var layerSync: Bool
    /// K: KEYIDX (0…31), the running index of key frames.
    public var keyIndex: UInt8?

    public init(
        nonReference: Bool = false, startOfPartition: Bool = false, partitionIndex: UInt8 = 0,
        pictureID: PictureID? = nil, tl0PicIdx: UInt8? = nil, temporalLayerID: UInt8? = nil,
        layerSync: Bool = false, keyIndex: UInt8? = nil
    ) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.tl0PicIdx = tl0PicIdx
        self.temporalLayerID = temporalLayerID
        self.layerSync = layerSync
        self.keyIndex = keyIndex
    }

    /// Whether this payload begins a frame: S=1 and PID=0 (RFC 7741 §4.2, §4.5.1).
    public var startsFrame: Bool { startOfPartition && partitionIndex == 0 }

    private var hasExtension: Bool {
        pictureID != nil || tl0PicIdx != nil || temporalLayerID != nil || keyIndex != nil
    }

    /// Octets `write` produces: 1 to 6.
    public var encodedSize: Int {
        guard hasExtension else { return 1 }
        var size = 2
        switch pictureID {
        case .short?: size += 1
        case .long?: size += 2
        case nil: break
        }
        if tl0PicIdx != nil { size += 1 }
        if temporalLayerID != nil || keyIndex != nil { size += 1 }
        return size
    }

    /// Appends the descriptor's octets. Fields wider than their wire width are masked.
    public func write(into bytes: inout [UInt8]) {
        let x: UInt8 = hasExtension ? 0x80 : 0
        bytes.append(x | (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | (partitionIndex & 0x07))
        guard hasExtension else { return }
        bytes.append((pictureID != nil ? 0x80 : 0) | (tl0PicIdx != nil ? 0x40 : 0)
                     | (temporalLayerID != nil ? 0x20 : 0) | (keyIndex != nil ? 0x10 : 0))
        switch pictureID {
        case .short(let v)?: bytes.append(v & 0x7f)
        case .long(let v)?: bytes.append(0x80 | UInt8((v >> 8) & 0x7f)); bytes.append(UInt8(v & 0xff))
        case nil: break
        }
        if let tl0PicIdx { bytes.append(tl0PicIdx) }
        if temporalLayerID != nil || keyIndex != nil {
            bytes.append(((temporalLayerID ?? 0) & 0x03) << 6 | (layerSync ? 0x20 : 0) | ((keyIndex ?? 0) & 0x1f))
        }
    }

    /// The descriptor's octets.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedSize)
        write(into: &out)
        return out
    }

    /// Parses the descriptor at the start of an RTP payload. Returns it and its length in octets;
    /// the VP8 data follows. A payload with no VP8 data after the descriptor is malformed.
    public static func parse(_ payload: [UInt8]) -> Result<(descriptor: VP8PayloadDescriptor, length: Int), VP8PayloadError> {
        guard let first = payload.first else { return .failure(.empty) }
        var d = VP8PayloadDescriptor(nonReference: first & 0x20 != 0, startOfPartition: first & 0x10 != 0,
                                     partitionIndex: first & 0x07)
        var index = 1
        if first & 0x80 != 0 {
            guard index < payload.count else { return .failure(.truncated) }
            let x = payload[index]
            index += 1
            if x & 0x80 != 0 {
                guard index < payload.count else { return .failure(.truncated) }
                let m = payload[index]
                if m & 0x80 != 0 {
                    guard index + 1 < payload.count else { return .failure(.truncated) }
                    d.pictureID = .long(UInt16(m & 0x7f) << 8 | UInt16(payload[index + 1]))
                    index += 2
                } else {
                    d.pictureID = .short(m)
                    index += 1
                }
            }
            if x & 0x40 != 0 {
                guard index < payload.count else { return .failure(.truncated) }
                d.tl0PicIdx = payload[index]
                index += 1
            }
            if x & 0x30 != 0 {
                guard index < payload.count else { return .failure(.truncated) }
                let tk = payload[index]
                index += 1
                if x & 0x20 != 0 {
                    d.temporalLayerID = tk >> 6
                    d.layerSync = tk & 0x20 != 0
                }
                if x & 0x10 != 0 { d.keyIndex = tk & 0x1f }
            }
        }
        guard index < payload.count else { return .failure(.noPayloadData) }
        return .success((d, index))
    }
}

/// Why a VP8 RTP payload could not be parsed.
public enum VP8PayloadError: Error, Equatable, Sendable {
    /// A zero-length payload.
    case empty
    /// The descriptor announces fields the payload is too short to hold.
    case truncated
    /// A descriptor with no VP8 data after it.
    case noPayloadData
}

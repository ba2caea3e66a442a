/// Duration, size and kind of a WebM file (a Matroska profile; RFC 8794 EBML, RFC 9559 Matroska),
/// as browsers record them: Firefox's `MediaRecorder` writes video as WebM, older Chromium audio
/// and video too.
///
/// EBML elements are an ID (a variable-length integer kept with its length marker, 1–4 bytes), a
/// size (a variable-length integer, 1–8 bytes, all value bits set meaning "unknown", RFC 8794 §6.2)
/// and the data. The file starts with the EBML header, whose `DocType` must be `webm`; then one
/// `Segment`. A recorder writing live leaves the sizes of the Segment and its Clusters unknown
/// (RFC 8794 §6.2): such an element ends where an element that cannot be its child begins.
///
/// - Kind: a `TrackEntry` of `TrackType` 1 (video) makes `.webm`; with only type 2 (audio) it is
///   `.weba`; neither is not a supported file.
/// - Size: the first video track's `PixelWidth` × `PixelHeight`.
/// - Duration: the `Info` element's `Duration` (a float, in `TimestampScale` units, default 1 ms);
///   a live recording has none, and then it is the span of the block timestamps (each Cluster's
///   `Timestamp` plus its blocks' relative 16-bit timestamps), which is short of the true length by
///   at most the last frame's.
enum WebMProbe {
    /// The leading bytes of every EBML document: the EBML header element's ID.
    static let signature: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3]

    enum ID {
        static let ebml: UInt32 = 0x1A45_DFA3, docType: UInt32 = 0x4282
        static let segment: UInt32 = 0x1853_8067
        static let info: UInt32 = 0x1549_A966, timestampScale: UInt32 = 0x2A_D7B1, duration: UInt32 = 0x4489
        static let tracks: UInt32 = 0x1654_AE6B, trackEntry: UInt32 = 0xAE, trackType: UInt32 = 0x83
        static let video: UInt32 = 0xE0, pixelWidth: UInt32 = 0xB0, pixelHeight: UInt32 = 0xBA
        static let cluster: UInt32 = 0x1F43_B675, timestamp: UInt32 = 0xE7
        static let simpleBlock: UInt32 = 0xA3, blockGroup: UInt32 = 0xA0, block: UInt32 = 0xA1
        /// The Segment's children (RFC 9559 §5.1): one of these ends a Cluster of unknown size.
        static let segmentLevel: Set<UInt32> = [0x114D_9B74, info, tracks, cluster, 0x1C53_BB6B, 0x1254_C367,
                                                0x1043_A770, 0x1941_A469]
    }

    /// One element: its ID, where its data lies, and whether its size was "unknown" (the data
    /// then runs to the end of its parent, until an element ends it).
    struct Element {
        let id: UInt32
        let data: Range<Int>
        let unknownSize: Bool
    }

    /// The document type named in a leading EBML header, from the first bytes of a file.
    static func docType(_ bytes: MediaBytes) -> String? {
        guard let header = element(bytes, at: 0, within: bytes.count), header.id == ID.ebml, !header.unknownSize,
              let type = children(bytes, header.data).first(where: { $0.id == ID.docType }) else { return nil }
        return String(decoding: bytes.bytes[type.data].prefix { $0 != 0 }, as: UTF8.self)
    }

    static func probe(_ bytes: MediaBytes) -> MediaInfo? {
        // A Segment whose stated size runs past the end (a cut-off file) is read as far as it goes.
        guard docType(bytes) == "webm", let header = element(bytes, at: 0, within: bytes.count),
              let open = element(bytes, at: header.data.upperBound, within: Int.max), open.id == ID.segment
        else { return nil }
        let segment = Element(id: open.id, data: open.data.lowerBound..<min(open.data.upperBound, bytes.count), unknownSize: true)
        var scale: UInt64 = 1_000_000      // ns per timestamp unit
        var stated: Double?
        var hasVideo = false, hasAudio = false
        var width: Int?, height: Int?
        var first: Int64?, last: Int64?

        var offset = segment.data.lowerBound
        while let child = element(bytes, at: offset, within: segment.data.upperBound) {
            switch child.id {
            case ID.info:
                for field in children(bytes, child.data) {
                    if field.id == ID.timestampScale, let value = unsigned(bytes, field.data), value > 0 { scale = value }
                    if field.id == ID.duration { stated = float(bytes, field.data) }
                }
            case ID.tracks:
                for entry in children(bytes, child.data) where entry.id == ID.trackEntry {
                    let fields = children(bytes, entry.data)
                    switch fields.first(where: { $0.id == ID.trackType }).flatMap({ unsigned(bytes, $0.data) }) {
                    case 1:
                        if !hasVideo, let picture = fields.first(where: { $0.id == ID.video }) {
                            let size = children(bytes, picture.data)
                            width = size.first { $0.id == ID.pixelWidth }.flatMap { unsigned(bytes, $0.data) }.flatMap(Int.init(exactly:))
                            height = size.first { $0.id == ID.pixelHeight }.flatMap { unsigned(bytes, $0.data) }.flatMap(Int.init(exactly:))
                        }
                        hasVideo = true
                    case 2: hasAudio = true
                    default: break
                    }
                }
            case ID.cluster:
                let end = clusterBlocks(bytes, child) { time in
                    first = min(first ?? time, time)
                    last = max(last ?? time, time)
                }
                offset = end
                continue
            default:
                break
            }
            guard !child.unknownSize else { break }   // only Segments and Clusters may be left open
            offset = child.data.upperBound
        }

        guard hasVideo || hasAudio else { return nil }
        var durationMs: Int?
        if let stated, stated > 0, stated.isFinite {
            let ms = (stated * Double(scale) / 1_000_000).rounded()
            if ms < Double(Int32.max) { durationMs = Int(ms) }
        } else if let first, let last, last > first {
            let (nanoseconds, overflow) = UInt64(last - first).multipliedReportingOverflow(by: scale)
            if !overflow { durationMs = MediaInfo.milliseconds(nanoseconds, per: 1_000_000_000) }
        }
        return MediaInfo(type: hasVideo ? .webm : .weba, durationMs: durationMs,
                         width: hasVideo ? width : nil, height: hasVideo ? height : nil)
    }

    /// Calls `time` with every block's timestamp in a Cluster (Cluster `Timestamp` plus the block's
    /// signed 16-bit relative timestamp, RFC 9559 §10.1) and returns where the Cluster ends.
    private static func clusterBlocks(_ bytes: MediaBytes, _ cluster: Element, time: (Int64) -> Void) -> Int {
        var base: Int64 = 0
        var offset = cluster.data.lowerBound
        while let child = element(bytes, at: offset, within: cluster.data.upperBound) {
            if cluster.unknownSize, ID.segmentLevel.contains(child.id) { return offset }
            switch child.id {
            case ID.timestamp:
                base = unsigned(bytes, child.data).flatMap { Int64(exactly: $0) } ?? base
            case ID.simpleBlock:
                if let relative = blockTime(bytes, child.data) { time(base &+ relative) }
            case ID.blockGroup:
                for part in children(bytes, child.data) where part.id == ID.block {
                    if let relative = blockTime(bytes, part.data) { time(base &+ relative) }
                }
            default:
                break
            }
            guard !child.unknownSize else { return cluster.data.upperBound }
            offset = child.data.upperBound
        }
        return cluster.data.upperBound
    }

    /// A block's relative timestamp: after the track number (a variable-length integer) come 16
    /// signed big-endian bits.
    private static func blockTime(_ bytes: MediaBytes, _ data: Range<Int>) -> Int64? {
        guard let track = vint(bytes, at: data.lowerBound, maxLength: 8, keepMarker: false),
              data.lowerBound + track.length + 2 <= data.upperBound,
              let raw = bytes.u16be(data.lowerBound + track.length) else { return nil }
        return Int64(Int16(bitPattern: raw))
    }

    /// The complete child elements inside `range` (a damaged or cut-off child ends the list).
    static func children(_ bytes: MediaBytes, _ range: Range<Int>) -> [Element] {
        var result: [Element] = []
        var offset = range.lowerBound
        while result.count < 10_000, let child = element(bytes, at: offset, within: range.upperBound), !child.unknownSize {
            result.append(child)
            offset = child.data.upperBound
        }
        return result
    }

    /// The element starting at `offset`, if its header is whole and its data fits before `limit`
    /// (an unknown size runs to `limit`).
    static func element(_ bytes: MediaBytes, at offset: Int, within limit: Int) -> Element? {
        guard offset < limit, let id = vint(bytes, at: offset, maxLength: 4, keepMarker: true),
              let size = vint(bytes, at: offset + id.length, maxLength: 8, keepMarker: false) else { return nil }
        let start = offset + id.length + size.length
        guard start <= limit else { return nil }
        let unknown = size.value == (UInt64(1) << (7 * UInt64(size.length))) - 1
        if unknown { return Element(id: UInt32(id.value), data: start..<limit, unknownSize: true) }
        guard size.value <= UInt64(limit - start) else { return nil }
        return Element(id: UInt32(id.value), data: start..<start + Int(size.value), unknownSize: false)
    }

    /// A variable-length integer (RFC 8794 §4): the count of leading zero bits of the first byte
    /// plus one is its length. IDs keep the marker bit; sizes and track numbers drop it.
    static func vint(_ bytes: MediaBytes, at offset: Int, maxLength: Int, keepMarker: Bool) -> (value: UInt64, length: Int)? {
        guard let first = bytes.u8(offset), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard length <= maxLength, bytes.has(offset, length) else { return nil }
        var value = UInt64(keepMarker ? first : first & (0xFF >> length))
        for index in 1..<length { value = value << 8 | UInt64(bytes.bytes[offset + index]) }
        return (value, length)
    }

    /// An unsigned integer element (0–8 bytes, big-endian).
    private static func unsigned(_ bytes: MediaBytes, _ data: Range<Int>) -> UInt64? {
        guard data.count <= 8 else { return nil }
        return data.reduce(UInt64(0)) { $0 << 8 | UInt64(bytes.bytes[$1]) }
    }

    /// A float element: 4 or 8 bytes, IEEE 754 big-endian (0 bytes means 0).
    private static func float(_ bytes: MediaBytes, _ data: Range<Int>) -> Double? {
        switch data.count {
        case 0: 0
        case 4: bytes.u32be(data.lowerBound).map { Double(Float(bitPattern: $0)) }
        case 8: bytes.u64be(data.lowerBound).map { Double(bitPattern: $0) }
        default: nil
        }
    }
}

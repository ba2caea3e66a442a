/// Writes WebM files (RFC 8794 EBML, RFC 9559 Matroska) element by element, with sizes known or
/// left "unknown" as a live recorder leaves them, so that the probe's EBML walk is exercised.
enum WebMWriter {
    /// An element: its ID bytes as written (marker kept), a size, the data. `unknownSize` writes
    /// the 8-byte all-ones size and lets the data run on.
    static func element(_ id: [UInt8], _ data: [UInt8], unknownSize: Bool = false) -> [UInt8] {
        id + (unknownSize ? [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] : size(data.count)) + data
    }

    /// A size as the shortest variable-length integer (RFC 8794 §4), never the reserved all-ones.
    static func size(_ value: Int) -> [UInt8] {
        for length in 1...8 where UInt64(value) < (UInt64(1) << (7 * UInt64(length))) - 1 {
            let marked = UInt64(value) | UInt64(1) << (7 * UInt64(length))
            return (0..<length).reversed().map { UInt8(marked >> (8 * UInt64($0)) & 0xFF) }
        }
        fatalError("too large")
    }

    static func uint(_ id: [UInt8], _ value: UInt64) -> [UInt8] {
        let bytes = (0..<8).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xFF) }.drop { $0 == 0 }
        return element(id, Array(bytes.isEmpty ? [0] : bytes))
    }

    static func header(docType: String = "webm") -> [UInt8] {
        element([0x1A, 0x45, 0xDF, 0xA3], uint([0x42, 0x86], 1) + element([0x42, 0x82], Array(docType.utf8)))
    }

    static func info(durationMs: Double? = nil, scale: UInt64 = 1_000_000) -> [UInt8] {
        var data = uint([0x2A, 0xD7, 0xB1], scale)
        if let durationMs {
            let units = durationMs * 1_000_000 / Double(scale)
            data += element([0x44, 0x89], (0..<8).reversed().map { UInt8(units.bitPattern >> (8 * UInt64($0)) & 0xFF) })
        }
        return element([0x15, 0x49, 0xA9, 0x66], data)
    }

    /// Track 1 video (when `width` is given) and track 2 audio (when `audio`).
    static func tracks(width: Int? = nil, height: Int = 0, audio: Bool = true) -> [UInt8] {
        var entries: [UInt8] = []
        if let width {
            entries += element([0xAE], uint([0xD7], 1) + uint([0x83], 1) + element([0x86], Array("V_VP8".utf8))
                + element([0xE0], uint([0xB0], UInt64(width)) + uint([0xBA], UInt64(height))))
        }
        if audio { entries += element([0xAE], uint([0xD7], 2) + uint([0x83], 2) + element([0x86], Array("A_OPUS".utf8))) }
        return element([0x16, 0x54, 0xAE, 0x6B], entries)
    }

    /// A SimpleBlock of `track` at `relative` ms from its Cluster's timestamp.
    static func block(track: UInt8 = 2, relative: Int16) -> [UInt8] {
        let time = UInt16(bitPattern: relative)
        return element([0xA3], [0x80 | track, UInt8(time >> 8), UInt8(time & 0xFF), 0x80] + [UInt8](repeating: 0xFC, count: 20))
    }

    static func cluster(at timestamp: UInt64, _ blocks: [[UInt8]], unknownSize: Bool = false) -> [UInt8] {
        element([0x1F, 0x43, 0xB6, 0x75], uint([0xE7], timestamp) + blocks.flatMap { $0 }, unknownSize: unknownSize)
    }

    static func segment(_ children: [UInt8], unknownSize: Bool = false) -> [UInt8] {
        element([0x18, 0x53, 0x80, 0x67], children, unknownSize: unknownSize)
    }

    /// What MediaRecorder writes live: unknown Segment and Cluster sizes, no Duration; blocks every
    /// 20 ms from 0 to `lastMs`, a Cluster a second.
    static func liveRecording(lastMs: Int, width: Int? = nil, height: Int = 0) -> [UInt8] {
        var clusters: [UInt8] = []
        for start in stride(from: 0, through: lastMs, by: 1000) {
            let times = stride(from: start, through: min(lastMs, start + 980), by: 20).map { Int16($0 - start) }
            clusters += cluster(at: UInt64(start), times.map { block(relative: $0) }, unknownSize: true)
        }
        return header() + segment(info() + tracks(width: width, height: height) + clusters, unknownSize: true)
    }
}

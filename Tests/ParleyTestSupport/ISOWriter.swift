/// Builds ISO base media files (ISO/IEC 14496-12) box by box, with exactly the fields the spec
/// lays out, so the tests know every value the probe should find.
public enum ISOWriter {
    public static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    public static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }
    public static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(value >> (56 - 8 * $0) & 0xFF) } }
    public static func fourCC(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A box with a 32-bit size.
    public static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + payload.count)) + fourCC(type) + payload
    }

    /// A box with size 1 and a 64-bit `largesize`.
    public static func largeBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(1) + fourCC(type) + u64(UInt64(16 + payload.count)) + payload
    }

    /// A box with size 0: it runs to the end of the file.
    public static func openBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(0) + fourCC(type) + payload
    }

    public static func fullBox(_ type: String, version: UInt8, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    public static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        box("ftyp", fourCC(major) + u32(0x200) + compatible.flatMap(fourCC))
    }

    /// The identity matrix {1 0 0, 0 1 0, 0 0 1} in 16.16 / 2.30 fixed point; `quarterTurn` gives
    /// the 90° rotation {0 1 0, -1 0 0, 0 0 1} phones write for portrait video.
    public static func matrix(quarterTurn: Bool = false) -> [UInt8] {
        let one: UInt32 = 0x0001_0000, minusOne: UInt32 = 0xFFFF_0000
        let abcd: [UInt32] = quarterTurn ? [0, one, 0, minusOne, 0, 0] : [one, 0, 0, 0, one, 0]
        return abcd.flatMap(u32) + u32(0) + u32(0) + u32(0x4000_0000)
    }

    /// `mvhd` (§8.2.2), 108 bytes in version 0, 120 in version 1.
    public static func mvhd(version: UInt8 = 0, timescale: UInt32, duration: UInt64) -> [UInt8] {
        let times = version == 1
            ? u64(3_000_000_000) + u64(3_000_000_001) + u32(timescale) + u64(duration)
            : u32(3_000_000_000) + u32(3_000_000_001) + u32(timescale) + u32(UInt32(duration))
        let rest = u32(0x0001_0000) + u16(0x0100) + [UInt8](repeating: 0, count: 10) + matrix()
            + [UInt8](repeating: 0, count: 24) + u32(3)
        return fullBox("mvhd", version: version, times + rest)
    }

    /// `mdhd` (§8.4.2): times, timescale, duration, language "und", pre_defined.
    public static func mdhd(version: UInt8 = 0, timescale: UInt32, duration: UInt64) -> [UInt8] {
        let times = version == 1
            ? u64(0) + u64(0) + u32(timescale) + u64(duration)
            : u32(0) + u32(0) + u32(timescale) + u32(UInt32(duration))
        return fullBox("mdhd", version: version, times + u16(0x55C4) + u16(0))
    }

    /// `tkhd` (§8.3.2) with width and height in 16.16 fixed point.
    public static func tkhd(version: UInt8 = 0, trackID: UInt32, duration: UInt64, width: Int, height: Int,
                     quarterTurn: Bool = false) -> [UInt8] {
        let head = version == 1
            ? u64(0) + u64(0) + u32(trackID) + u32(0) + u64(duration)
            : u32(0) + u32(0) + u32(trackID) + u32(0) + u32(UInt32(duration))
        let middle = [UInt8](repeating: 0, count: 8) + u16(0) + u16(0) + u16(width == 0 ? 0x0100 : 0) + u16(0)
        return fullBox("tkhd", version: version, flags: 3, head + middle + matrix(quarterTurn: quarterTurn)
            + u32(UInt32(width) << 16 | 0x8000) + u32(UInt32(height) << 16))
    }

    /// `hdlr` (§8.4.3): pre_defined, handler type, reserved, empty name.
    public static func hdlr(_ handler: String) -> [UInt8] {
        fullBox("hdlr", version: 0, u32(0) + fourCC(handler) + [UInt8](repeating: 0, count: 12) + [0])
    }

    /// A track: `trak{tkhd, mdia{mdhd, hdlr, minf{}}}`.
    public static func trak(_ handler: String, id: UInt32, version: UInt8 = 0, timescale: UInt32, duration: UInt64,
                     width: Int = 0, height: Int = 0, quarterTurn: Bool = false) -> [UInt8] {
        box("trak", tkhd(version: version, trackID: id, duration: 0, width: width, height: height, quarterTurn: quarterTurn)
            + box("mdia", mdhd(version: version, timescale: timescale, duration: duration) + hdlr(handler) + box("minf", [])))
    }

    /// Some media data: the probe must step over it, not read it.
    public static func mdat(_ count: Int = 64) -> [UInt8] {
        box("mdat", (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) })
    }

    /// A typical movie: ftyp, then either moov before mdat ("fast start") or after it, with a
    /// `free` box between.
    public static func movie(major: String = "isom", compatible: [String] = ["isom", "iso2", "avc1", "mp41"],
                      moovFirst: Bool = false, moov: [UInt8]) -> [UInt8] {
        let head = ftyp(major, compatible) + box("free", [])
        return moovFirst ? head + moov + mdat() : head + mdat() + moov
    }

    /// A movie of one video track (and optionally a sound track) lasting `duration / timescale`.
    public static func videoMoov(timescale: UInt32, duration: UInt64, version: UInt8 = 0, width: Int = 1280,
                          height: Int = 720, withSound: Bool = true, quarterTurn: Bool = false) -> [UInt8] {
        var tracks = trak("vide", id: 1, version: version, timescale: timescale, duration: duration,
                          width: width, height: height, quarterTurn: quarterTurn)
        if withSound {
            tracks += trak("soun", id: 2, timescale: 44100, duration: duration * 44100 / UInt64(timescale))
        }
        return box("moov", mvhd(version: version, timescale: timescale, duration: duration) + tracks)
    }
}

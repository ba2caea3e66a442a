import ParleyTestSupport

/// Writes MPEG audio frames, ID3 tags and Xing/Info/LAME/VBRI tag frames.
enum MP3Writer {
    /// A frame header: sync, version (3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5), Layer III, no CRC,
    /// bitrate and sample rate indices, padding, channel mode (0 stereo, 3 mono).
    static func header(version: UInt32 = 3, bitrateIndex: UInt32, rateIndex: UInt32 = 0, padded: Bool = false,
                       mono: Bool = false) -> [UInt8] {
        let word: UInt32 = 0xFFE0_0000 | version << 19 | 1 << 17 | 1 << 16 | bitrateIndex << 12 | rateIndex << 10
            | (padded ? 1 << 9 : 0) | (mono ? 3 << 6 : 0)
        return ISOWriter.u32(word)
    }

    /// A whole frame of `length` bytes (the length the header implies), body filled with a pattern.
    static func frame(_ header: [UInt8], length: Int) -> [UInt8] {
        header + (4..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 | 1) & 0x7F }
    }

    /// An ID3v2.4 tag of `size` body bytes (syncsafe size), with a footer when asked.
    static func id3(size: Int, footer: Bool = false) -> [UInt8] {
        let syncsafe = [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
        var tag = Array("ID3".utf8) + [4, 0, footer ? 0x10 : 0] + syncsafe + [UInt8](repeating: 0, count: size)
        if footer { tag += Array("3DI".utf8) + [4, 0, 0x10] + syncsafe }
        return tag
    }

    /// A 128-byte ID3v1 tag.
    static let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)

    /// The first frame of a LAME-style file: a silent frame whose body holds an Info/Xing tag
    /// (after the 32-byte MPEG-1 stereo side information) with the frame count, and optionally the
    /// LAME extension with encoder delay and padding.
    static func xingFrame(_ header: [UInt8], length: Int, sideInfo: Int = 32, frames: UInt32,
                          tag: String = "Info", delay: Int? = nil, padding: Int = 0) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: sideInfo) + Array(tag.utf8)
        if let delay {
            body += ISOWriter.u32(0x0F) + ISOWriter.u32(frames) + ISOWriter.u32(UInt32(length) * frames)
            body += (0..<100).map { UInt8($0 * 255 / 100) } + ISOWriter.u32(57)
            body += Array("LAME3.100".utf8) + [0x03, 0x69] + [UInt8](repeating: 0, count: 8) + [0, 0]
            body += [UInt8(delay >> 4), UInt8((delay & 0xF) << 4 | padding >> 8), UInt8(padding & 0xFF)]
        } else {
            body += ISOWriter.u32(0x01) + ISOWriter.u32(frames)
        }
        return header + body + [UInt8](repeating: 0, count: length - 4 - body.count)
    }

    /// The first frame with a Fraunhofer VBRI tag 32 bytes after the header.
    static func vbriFrame(_ header: [UInt8], length: Int, frames: UInt32) -> [UInt8] {
        let body = [UInt8](repeating: 0, count: 32) + Array("VBRI".utf8) + ISOWriter.u16(1) + ISOWriter.u16(1105)
            + ISOWriter.u16(75) + ISOWriter.u32(UInt32(length) * frames) + ISOWriter.u32(frames)
        return header + body + [UInt8](repeating: 0, count: length - 4 - body.count)
    }
}

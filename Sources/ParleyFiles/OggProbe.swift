/// Duration of an Ogg Opus or Ogg Vorbis file.
///
/// Pages (RFC 3533 §6): "OggS", version 0, header type, 64-bit little-endian granule position,
/// serial number, page sequence number, CRC-32, segment count, segment table, then the segments.
/// Pages are walked from the start; each must have the capture pattern, version 0, fit in the
/// file, and carry a correct CRC-32 (polynomial 0x04C11DB7, initial value 0, unreflected, computed
/// over the page with its CRC field zeroed). The walk stops at the first page that fails, so a
/// truncated or damaged tail yields the duration of the intact part.
///
/// The first page of the first logical stream must begin an Opus or Vorbis identification header:
/// - Opus (RFC 7845 §5.1 "OpusHead"): duration = (last granule − pre-skip) / 48 000 (§4: granule
///   positions always count 48 kHz samples, including the pre-skip).
/// - Vorbis (Vorbis I specification §4.2.2): duration = last granule / the identification header's
///   sample rate.
/// The last granule is that of the last intact page of the same stream with a granule other than −1
/// ("no packet ends on this page"). Other codecs (Theora video, Speex, FLAC) return nil; in a
/// chained file only the first link is measured.
enum OggProbe {
    static func probe(_ bytes: MediaBytes) -> MediaInfo? {
        guard let first = page(bytes, at: 0), first.headerType & 0x02 != 0 else { return nil }  // BOS.
        let payload = first.bodyStart
        let samplesPerSecond: UInt64
        let preSkip: UInt64
        if bytes.matches("OpusHead", at: payload) {
            // version (major version must be 0), channel count, pre-skip (16-bit LE), input rate, …
            guard let version = bytes.u8(payload + 8), version & 0xF0 == 0,
                  let channels = bytes.u8(payload + 9), channels > 0,
                  let skip = bytes.u16le(payload + 10), payload + 19 <= first.end else { return nil }
            samplesPerSecond = 48000
            preSkip = UInt64(skip)
        } else if bytes.u8(payload) == 1, bytes.matches("vorbis", at: payload + 1) {
            // vorbis_version (32-bit, 0), audio_channels, audio_sample_rate (32-bit LE), …
            guard bytes.u32le(payload + 7) == 0, let channels = bytes.u8(payload + 11), channels > 0,
                  let rate = bytes.u32le(payload + 12), rate > 0, payload + 30 <= first.end else { return nil }
            samplesPerSecond = UInt64(rate)
            preSkip = 0
        } else {
            return nil
        }

        var lastGranule: UInt64?
        var offset = 0
        while let current = page(bytes, at: offset) {
            if current.serial == first.serial, current.granule != UInt64.max { lastGranule = current.granule }
            offset = current.end
        }
        // A granule with the top bit set is negative (RFC 7845 §4), i.e. no audio yet.
        let duration = lastGranule.flatMap { granule -> Int? in
            guard granule < 1 << 63 else { return 0 }
            return MediaInfo.milliseconds(granule > preSkip ? granule - preSkip : 0, per: samplesPerSecond)
        }
        return MediaInfo(type: .ogg, durationMs: duration)
    }

    /// One verified page: where its body starts and the page ends, and its header fields.
    struct Page {
        let headerType: UInt8
        let granule: UInt64
        let serial: UInt32
        let bodyStart: Int
        let end: Int
    }

    /// The page at `offset`, or nil when it is missing, cut off, of another version, or its CRC fails.
    static func page(_ bytes: MediaBytes, at offset: Int) -> Page? {
        guard bytes.matches("OggS", at: offset), bytes.u8(offset + 4) == 0,
              let headerType = bytes.u8(offset + 5), let granule = bytes.u64le(offset + 6),
              let serial = bytes.u32le(offset + 14), let crc = bytes.u32le(offset + 22),
              let segments = bytes.u8(offset + 26), bytes.has(offset + 27, Int(segments))
        else { return nil }
        var bodyLength = 0
        for index in 0..<Int(segments) { bodyLength += Int(bytes.bytes[offset + 27 + index]) }
        let bodyStart = offset + 27 + Int(segments)
        guard bytes.has(bodyStart, bodyLength) else { return nil }
        let end = bodyStart + bodyLength
        guard checksum(bytes.bytes, offset..<end, crcAt: offset + 22) == crc else { return nil }
        return Page(headerType: headerType, granule: granule, serial: serial, bodyStart: bodyStart, end: end)
    }

    /// Ogg's CRC-32 (RFC 3533 §6: generator 0x04C11DB7, initial 0, no reflection, no final XOR)
    /// over `range`, reading the four bytes at `crcAt` as zero.
    static func checksum<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ range: Range<Int>, crcAt: Int = -4) -> UInt32
        where Bytes.Index == Int
    {
        var crc: UInt32 = 0
        for index in range {
            let byte = (crcAt..<crcAt + 4).contains(index) ? 0 : bytes[index]
            crc = crc << 8 ^ table[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? value << 1 ^ 0x04C1_1DB7 : value << 1 }
        return value
    }
}

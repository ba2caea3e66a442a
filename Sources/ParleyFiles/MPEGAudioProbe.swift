/// Duration of an MP3 (MPEG-1/2/2.5 audio, any layer) stream.
///
/// 1. Leading ID3v2 tags are skipped (ID3v2.4.0 "Main Structure" §3.1: "ID3", version, flags, a
///    28-bit syncsafe size excluding the 10-byte header, plus a 10-byte footer when flag bit 4 is
///    set); several tags in a row are tolerated.
/// 2. The first frame is found within 128 KiB after that (some taggers pad with zeros) and must be
///    followed by a second frame of the same stream (or the end of the file), so that a stray `FF Fx`
///    byte pair is not taken for audio.
/// 3. If that frame carries a Xing/Info tag (after the Layer III side information) with a frame
///    count, or a Fraunhofer VBRI tag (32 bytes after the header), the duration is
///    `frames × samplesPerFrame / sampleRate`, less the encoder delay and padding of a LAME tag
///    when one is present (the "gapless" length a player actually plays).
/// 4. Otherwise every frame is walked, its length computed from bitrate, sample rate and padding,
///    and samples summed; the walk stops at an ID3v1 "TAG", at anything that is not a frame of the
///    same stream, or at a frame cut off by the end of the file.
///
/// Returns nil when no frame is found (e.g. an ID3 tag in front of something else).
enum MPEGAudioProbe {
    static func probe(_ bytes: MediaBytes) -> MediaInfo? {
        var offset = 0
        while bytes.matches("ID3", at: offset), let tagLength = id3v2Length(bytes, at: offset) {
            offset += tagLength
        }
        guard let (start, first) = firstFrame(bytes, from: offset) else { return nil }
        let tag = encoderTag(bytes, frame: first, at: start)
        if let frames = tag?.frames, frames > 0 {
            let total = UInt64(frames) * UInt64(first.samplesPerFrame)
            let trim = UInt64(tag?.trim ?? 0)
            let samples = trim < total ? total - trim : total
            return MediaInfo(type: .mp3, durationMs: MediaInfo.milliseconds(samples, per: UInt64(first.sampleRate)))
        }
        // Walk the frames; a tag frame without a count is silence and is not counted.
        var samples: UInt64 = 0
        var position = tag == nil ? start : start + first.length
        while !bytes.matches("TAG", at: position), let frame = MPEGAudioFrame(bytes, at: position),
              frame.continues(first), bytes.has(position, frame.length) {
            samples += UInt64(frame.samplesPerFrame)
            position += frame.length
        }
        return MediaInfo(type: .mp3, durationMs: MediaInfo.milliseconds(samples, per: UInt64(first.sampleRate)))
    }

    /// Total bytes of the ID3v2 tag at `offset`, or nil when its header is malformed.
    private static func id3v2Length(_ bytes: MediaBytes, at offset: Int) -> Int? {
        guard let major = bytes.u8(offset + 3), (2...4).contains(major), let flags = bytes.u8(offset + 5)
        else { return nil }
        var size = 0
        for index in 0..<4 {
            guard let byte = bytes.u8(offset + 6 + index), byte < 0x80 else { return nil }
            size = size << 7 | Int(byte)
        }
        return 10 + size + (flags & 0x10 != 0 ? 10 : 0)
    }

    /// The first frame at or after `offset` that is confirmed by the next one.
    private static func firstFrame(_ bytes: MediaBytes, from offset: Int) -> (Int, MPEGAudioFrame)? {
        guard offset >= 0 else { return nil }
        let limit = min(bytes.count - 4, offset + 128 * 1024)
        var position = offset
        while position <= limit {
            if bytes.u8(position) == 0xFF, let frame = MPEGAudioFrame(bytes, at: position) {
                let next = position + frame.length
                if next == bytes.count || bytes.matches("TAG", at: next) { return (position, frame) }
                if let following = MPEGAudioFrame(bytes, at: next), following.continues(frame) {
                    return (position, frame)
                }
            }
            position += 1
        }
        return nil
    }

    /// What an encoder wrote into the first frame: a frame count (nil when the tag has none) and the
    /// LAME encoder delay plus end padding in samples.
    struct EncoderTag {
        var frames: UInt32?
        var trim: Int = 0
    }

    /// Looks for Xing/Info (Layer III) then VBRI in the frame at `start`.
    private static func encoderTag(_ bytes: MediaBytes, frame: MPEGAudioFrame, at start: Int) -> EncoderTag? {
        if frame.layer == 3 {
            let xingAt = start + 4 + frame.sideInfoLength
            // Some encoders count the CRC of a protected frame before the tag.
            for candidate in frame.isProtected ? [xingAt, xingAt + 2] : [xingAt]
            where bytes.matches("Xing", at: candidate) || bytes.matches("Info", at: candidate) {
                return xing(bytes, at: candidate, frame: frame)
            }
        }
        // VBRI: "VBRI", version, delay, quality (16-bit each), byte count, frame count (32-bit).
        let vbriAt = start + 4 + 32
        if bytes.matches("VBRI", at: vbriAt) {
            return EncoderTag(frames: bytes.u32be(vbriAt + 14))
        }
        return nil
    }

    /// Xing/Info: the tag, a 32-bit flags word, then (each when its flag is set) frames (1),
    /// bytes (2), a 100-byte seek table (4) and a quality (8); a LAME extension may follow with a
    /// 9-byte encoder name and, 21 bytes in, 12-bit encoder delay and 12-bit padding.
    private static func xing(_ bytes: MediaBytes, at offset: Int, frame: MPEGAudioFrame) -> EncoderTag {
        var tag = EncoderTag()
        guard let flags = bytes.u32be(offset + 4) else { return tag }
        var field = offset + 8
        if flags & 1 != 0 {
            tag.frames = bytes.u32be(field)
            field += 4
        }
        if flags & 2 != 0 { field += 4 }
        if flags & 4 != 0 { field += 100 }
        if flags & 8 != 0 { field += 4 }
        let encoders = ["LAME", "Lavc", "Lavf", "GOGO"]
        if encoders.contains(where: { bytes.matches($0, at: field) }),
           let high = bytes.u8(field + 21), let middle = bytes.u8(field + 22), let low = bytes.u8(field + 23) {
            let delay = Int(high) << 4 | Int(middle) >> 4
            let padding = Int(middle & 0x0F) << 8 | Int(low)
            tag.trim = delay + padding
        }
        return tag
    }
}

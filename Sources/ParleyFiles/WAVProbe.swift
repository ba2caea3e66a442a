/// Duration of a WAV file: RIFF "WAVE" (Microsoft/IBM "Multimedia Programming Interface and Data
/// Specifications 1.0", 1991, RIFF chunks and the WAVE form; RFC 2361 for format tags).
///
/// After "RIFF", a 32-bit little-endian size and "WAVE" come chunks: a four-character id, a 32-bit
/// little-endian size and the data, padded to an even length. Chunks may come in any order and
/// unknown ones (`LIST`, `bext`, `JUNK`, …) are skipped. Writers that forget the pad byte after an
/// odd-sized chunk are tolerated: if a valid chunk id starts right after the data and none starts
/// one byte later, the pad is taken to be missing.
///
/// - `fmt `: format tag, channels, sample rate, average byte rate (bytes per second), block align.
/// - `data`: its size over the byte rate is the duration (`sampleRate × blockAlign` when the byte
///   rate is 0). A size larger than what is there (a stream that never went back to fix it, or a
///   truncated upload) counts only the bytes present.
/// - `fact`: for compressed formats (not PCM 1, float 3 or extensible 0xFFFE) the sample count in
///   `fact` over the sample rate is exact and preferred.
enum WAVProbe {
    static func probe(_ bytes: MediaBytes) -> MediaInfo? {
        guard bytes.matches("RIFF", at: 0), bytes.matches("WAVE", at: 8) else { return nil }
        var formatTag: UInt16?, sampleRate: UInt32?, byteRate: UInt32?, blockAlign: UInt16?
        var dataLength: Int?, factSamples: UInt32?
        var offset = 12
        while let id = bytes.fourCC(offset), let declared = bytes.u32le(offset + 4) {
            let body = offset + 8
            let size = Int(declared)
            switch id {
            case "fmt ":
                guard size >= 16, bytes.has(body, 16) else { return MediaInfo(type: .wav) }
                formatTag = bytes.u16le(body)
                sampleRate = bytes.u32le(body + 4)
                byteRate = bytes.u32le(body + 8)
                blockAlign = bytes.u16le(body + 12)
            case "data":
                if dataLength == nil { dataLength = min(size, bytes.count - body) }
            case "fact":
                if size >= 4 { factSamples = bytes.u32le(body) }
            default:
                break
            }
            guard size <= bytes.count - body else { break }  // The rest is cut off.
            let end = body + size
            if size % 2 == 1, !isChunkID(bytes, at: end + 1), isChunkID(bytes, at: end) {
                offset = end
            } else {
                offset = end + size % 2
            }
        }
        guard let sampleRate, sampleRate > 0 else { return MediaInfo(type: .wav) }
        if let formatTag, ![1, 3, 0xFFFE].contains(formatTag), let factSamples {
            return MediaInfo(type: .wav, durationMs: MediaInfo.milliseconds(UInt64(factSamples), per: UInt64(sampleRate)))
        }
        var perSecond = UInt64(byteRate ?? 0)
        if perSecond == 0 { perSecond = UInt64(sampleRate) * UInt64(blockAlign ?? 0) }
        guard let dataLength, perSecond > 0 else { return MediaInfo(type: .wav) }
        return MediaInfo(type: .wav, durationMs: MediaInfo.milliseconds(UInt64(dataLength), per: perSecond))
    }

    /// Chunk ids are four printable ASCII characters (letters, digits, space).
    private static func isChunkID(_ bytes: MediaBytes, at offset: Int) -> Bool {
        guard bytes.has(offset, 8) else { return false }
        return bytes.bytes[offset..<offset + 4].allSatisfy { (0x20...0x7E).contains($0) }
    }
}

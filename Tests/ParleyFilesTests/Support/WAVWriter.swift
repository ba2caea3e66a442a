/// Writes RIFF WAVE files chunk by chunk (little-endian sizes, even padding).
enum WAVWriter {
    static func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }

    /// A chunk, padded to an even length unless `pad` is false (a writer bug some files have).
    static func chunk(_ id: String, _ body: [UInt8], pad: Bool = true, declaredSize: UInt32? = nil) -> [UInt8] {
        Array(id.utf8) + u32(declaredSize ?? UInt32(body.count)) + body + (pad && body.count % 2 == 1 ? [0] : [])
    }

    /// `fmt ` for PCM (format 1) unless another format tag is given.
    static func fmt(format: Int = 1, channels: Int = 2, sampleRate: UInt32 = 44100, bitsPerSample: Int = 16,
                    byteRate: UInt32? = nil) -> [UInt8] {
        let blockAlign = channels * bitsPerSample / 8
        return chunk("fmt ", u16(format) + u16(channels) + u32(sampleRate)
            + u32(byteRate ?? sampleRate * UInt32(blockAlign)) + u16(blockAlign) + u16(bitsPerSample))
    }

    static func file(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = Array("WAVE".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + u32(UInt32(body.count)) + body
    }
}

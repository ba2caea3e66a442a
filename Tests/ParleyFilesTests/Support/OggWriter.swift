/// Writes Ogg pages (RFC 3533) with their real CRC-32, and Opus/Vorbis headers, so the probe's
/// page checks are exercised.
enum OggWriter {
    /// RFC 3533 §6's CRC-32: generator 0x04C11DB7, initial 0, no reflection, no final XOR, computed
    /// bit by bit here (the probe uses a table) so the two cannot share a mistake.
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// One page holding whole `packets` (lacing values of 255 and a final one below 255).
    static func page(serial: UInt32 = 0x1234_5678, sequence: UInt32, granule: UInt64, bos: Bool = false,
                     eos: Bool = false, packets: [[UInt8]], corruptCRC: Bool = false) -> [UInt8] {
        var lacing: [UInt8] = []
        for packet in packets {
            lacing += [UInt8](repeating: 255, count: packet.count / 255) + [UInt8(packet.count % 255)]
        }
        var page = Array("OggS".utf8) + [0, (bos ? 2 : 0) | (eos ? 4 : 0)]
        page += (0..<8).map { UInt8(granule >> (8 * $0) & 0xFF) }
        page += WAVWriter.u32(serial) + WAVWriter.u32(sequence) + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing
        page += packets.flatMap { $0 }
        let checksum = crc(page) ^ (corruptCRC ? 1 : 0)
        page.replaceSubrange(22..<26, with: WAVWriter.u32(checksum))
        return page
    }

    /// RFC 7845 §5.1 identification header: version 1, channels, pre-skip, input rate, gain, family 0.
    static func opusHead(channels: UInt8 = 2, preSkip: Int = 312) -> [UInt8] {
        Array("OpusHead".utf8) + [1, channels] + WAVWriter.u16(preSkip) + WAVWriter.u32(48000) + [0, 0, 0]
    }

    /// RFC 7845 §5.2 comment header: vendor string, no comments.
    static func opusTags() -> [UInt8] {
        Array("OpusTags".utf8) + WAVWriter.u32(6) + Array("parley".utf8) + WAVWriter.u32(0)
    }

    /// Vorbis I §4.2.2 identification header.
    static func vorbisHead(sampleRate: UInt32) -> [UInt8] {
        [1] + Array("vorbis".utf8) + WAVWriter.u32(0) + [2] + WAVWriter.u32(sampleRate)
            + WAVWriter.u32(0) + WAVWriter.u32(128_000) + WAVWriter.u32(0) + [0xB8, 1]
    }

    /// A whole Ogg Opus file: head page, tags page, then audio pages (packets of filler) whose
    /// granules are `granules` (the last one marked end of stream).
    static func opusFile(preSkip: Int = 312, granules: [UInt64]) -> [UInt8] {
        var file = page(sequence: 0, granule: 0, bos: true, packets: [opusHead(preSkip: preSkip)])
        file += page(sequence: 1, granule: 0, packets: [opusTags()])
        for (index, granule) in granules.enumerated() {
            let packets = [[UInt8](repeating: 0xFC, count: 300), [UInt8](repeating: 0xF8, count: 40)]
            file += page(sequence: UInt32(2 + index), granule: granule, eos: index == granules.count - 1, packets: packets)
        }
        return file
    }
}

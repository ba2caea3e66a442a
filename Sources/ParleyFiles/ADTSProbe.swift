/// Raw AAC in ADTS frames (ISO/IEC 13818-7 §6.2, ISO/IEC 14496-3 §1.A.2.2), what an iOS recorder
/// writes to a `.aac` file: each frame starts with a 7-byte header (9 with its CRC) — 12 sync
/// bits `FFF`, the MPEG version bit, layer `00`, the protection-absent bit, the profile, a sample
/// rate index, the channel configuration, the frame's length in bytes (13 bits, header included)
/// and how many raw data blocks of 1 024 samples it carries, less one.
enum ADTSProbe {
    /// The sample rates of the index (14496-3 Table 1.18); 13–15 are reserved.
    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    struct Header: Equatable {
        var sampleRate: Int
        /// Bytes in the frame, header included.
        var length: Int
        /// PCM samples per channel the frame decodes to.
        var samples: Int
    }

    /// The header at `offset`, or nil when the bytes are not one.
    static func header(_ bytes: MediaBytes, at offset: Int) -> Header? {
        guard let b0 = bytes.u8(offset), let b1 = bytes.u8(offset + 1), let b2 = bytes.u8(offset + 2),
              let b3 = bytes.u8(offset + 3), let b4 = bytes.u8(offset + 4), let b5 = bytes.u8(offset + 5),
              let b6 = bytes.u8(offset + 6),
              b0 == 0xFF, b1 & 0xF6 == 0xF0   // sync, layer 00
        else { return nil }
        let rateIndex = Int(b2 >> 2) & 0x0F
        guard rateIndex < sampleRates.count else { return nil }
        let length = Int(b3 & 0x03) << 11 | Int(b4) << 3 | Int(b5 >> 5)
        let headerLength = b1 & 0x01 == 1 ? 7 : 9
        guard length > headerLength else { return nil }
        return Header(sampleRate: sampleRates[rateIndex], length: length, samples: (Int(b6 & 0x03) + 1) * 1_024)
    }

    /// Whether the file starts with an ADTS frame followed by another of the same stream (or
    /// nothing): a lone `FF F1` pair is not enough.
    static func looksLikeADTS(_ bytes: MediaBytes) -> Bool {
        guard let first = header(bytes, at: 0) else { return false }
        guard bytes.has(first.length, 1) else { return bytes.has(0, first.length) }
        return header(bytes, at: first.length)?.sampleRate == first.sampleRate
    }

    /// The duration: the samples of every whole frame, walked from the start.
    static func probe(_ bytes: MediaBytes) -> MediaInfo? {
        guard let first = header(bytes, at: 0) else { return nil }
        var samples: UInt64 = 0
        var position = 0
        while let frame = header(bytes, at: position), frame.sampleRate == first.sampleRate, bytes.has(position, frame.length) {
            samples += UInt64(frame.samples)
            position += frame.length
        }
        return MediaInfo(type: .aac, durationMs: MediaInfo.milliseconds(samples, per: UInt64(first.sampleRate)))
    }
}

/// The 4-byte header of one MPEG audio frame (ISO/IEC 11172-3 §2.4.1.3 for MPEG-1, ISO/IEC 13818-3
/// for the MPEG-2 "lower sampling frequency" extension, and the unofficial MPEG-2.5 extension that
/// reuses the version bits `00`): 11 sync bits, version, layer, CRC flag, bitrate index, sample rate
/// index, padding bit, private bit, channel mode, then fields that do not affect the length.
struct MPEGAudioFrame: Equatable {
    enum Version { case mpeg1, mpeg2, mpeg25 }

    let version: Version
    /// 1, 2 or 3 (Layer III is MP3).
    let layer: Int
    /// Bits per second.
    let bitrate: Int
    /// Samples per second.
    let sampleRate: Int
    let padded: Bool
    let isMono: Bool
    /// A 16-bit CRC follows the header (the protection bit is 0).
    let isProtected: Bool

    /// PCM samples per channel that one frame decodes to: 384 for Layer I, 1152 for Layer II and for
    /// MPEG-1 Layer III, 576 for MPEG-2/2.5 Layer III.
    var samplesPerFrame: Int {
        switch layer {
        case 1: 384
        case 2: 1152
        default: version == .mpeg1 ? 1152 : 576
        }
    }

    /// Bytes in the frame including the header: Layer I counts 4-byte slots,
    /// `(12 × bitrate / rate + padding) × 4`; Layers II and III count bytes,
    /// `samplesPerFrame / 8 × bitrate / rate + padding` (144 or, for MPEG-2/2.5 Layer III, 72).
    var length: Int {
        if layer == 1 { return (12 * bitrate / sampleRate + (padded ? 1 : 0)) * 4 }
        return samplesPerFrame / 8 * bitrate / sampleRate + (padded ? 1 : 0)
    }

    /// Side information size in Layer III (ISO/IEC 11172-3 §2.4.1.7; 13818-3 §2.4.1.7): where an
    /// encoder's Xing/Info tag starts after the header.
    var sideInfoLength: Int {
        switch (version == .mpeg1, isMono) {
        case (true, false): 32
        case (true, true): 17
        case (false, false): 17
        case (false, true): 9
        }
    }

    /// Whether `other` belongs to the same stream (version, layer and sample rate stay fixed; the
    /// bitrate and channel mode may change from frame to frame).
    func continues(_ other: MPEGAudioFrame) -> Bool {
        version == other.version && layer == other.layer && sampleRate == other.sampleRate
    }

    /// Reads a header at `offset`; nil when the bytes are not one (no sync, a reserved version or
    /// layer, the "bad" bitrate index 15, free-format bitrate 0 — whose length cannot be computed —
    /// or the reserved sample rate index 3).
    init?(_ bytes: MediaBytes, at offset: Int) {
        guard let word = bytes.u32be(offset), word & 0xFFE0_0000 == 0xFFE0_0000 else { return nil }
        let versionBits = (word >> 19) & 3, layerBits = (word >> 17) & 3
        let bitrateIndex = Int((word >> 12) & 0xF), rateIndex = Int((word >> 10) & 3)
        guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3
        else { return nil }
        version = versionBits == 3 ? .mpeg1 : versionBits == 2 ? .mpeg2 : .mpeg25
        layer = 4 - Int(layerBits)
        let table: [Int] = switch (version, layer) {
        case (.mpeg1, 1): Self.mpeg1Layer1
        case (.mpeg1, 2): Self.mpeg1Layer2
        case (.mpeg1, _): Self.mpeg1Layer3
        case (_, 1): Self.mpeg2Layer1
        default: Self.mpeg2Layer2And3
        }
        bitrate = table[bitrateIndex - 1] * 1000
        let rates = [44100, 48000, 32000]
        sampleRate = switch version {
        case .mpeg1: rates[rateIndex]
        case .mpeg2: rates[rateIndex] / 2
        case .mpeg25: rates[rateIndex] / 4
        }
        padded = (word >> 9) & 1 == 1
        isMono = (word >> 6) & 3 == 3
        isProtected = (word >> 16) & 1 == 0
    }

    // Bitrates in kbit/s for indices 1…14 (ISO/IEC 11172-3 Table 2.4.2.3; 13818-3 Table 2.4.2.3).
    private static let mpeg1Layer1 = [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
    private static let mpeg1Layer2 = [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
    private static let mpeg1Layer3 = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    private static let mpeg2Layer1 = [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
    private static let mpeg2Layer2And3 = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
}

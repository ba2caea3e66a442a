import ParleyFiles
import Testing

/// Raw AAC in ADTS frames (ISO/IEC 13818-7 §6.2), built byte by byte.
@Suite struct ADTSProbeTests {
    /// One frame: a 7-byte header without CRC (MPEG-4, AAC LC, stereo) and `payload` bytes.
    static func frame(rateIndex: UInt8 = 4, payload: Int = 200, blocks: Int = 1) -> [UInt8] {
        let length = 7 + payload
        let header: [UInt8] = [
            0xFF, 0xF1,                                              // sync, MPEG-4, layer 00, no CRC
            0x40 | rateIndex << 2 | 0x00,                            // profile LC, rate, private, channels (high bit)
            0x80 | UInt8((length >> 11) & 0x03),                     // channels 2, length (top bits)
            UInt8((length >> 3) & 0xFF),
            UInt8((length & 0x07) << 5) | 0x1F,                      // length (low bits), fullness 0x7FF
            0xFC | UInt8(blocks - 1),
        ]
        return header + [UInt8](repeating: 0x21, count: payload)
    }

    @Test func framesAreRecognisedAndTheirSamplesSummed() throws {
        // 43 frames of 1 024 samples at 44.1 kHz: 998 ms.
        let file = (0..<43).flatMap { _ in Self.frame() }
        #expect(MediaType.sniff(file) == .aac)
        let info = try #require(MediaProbe.probe(file))
        #expect(info.type == .aac && info.type.kind == .audio && info.type.contentType == "audio/aac")
        #expect(info.durationMs == 998)
        // Two raw data blocks per frame at 48 kHz: 2 048 samples each; 30 frames = 1 280 ms.
        let dense = (0..<30).flatMap { _ in Self.frame(rateIndex: 3, payload: 300, blocks: 2) }
        #expect(MediaProbe.probe(dense)?.durationMs == 1_280)
    }

    @Test func aCutLastFrameIsNotCounted() {
        let file = (0..<10).flatMap { _ in Self.frame() } + Array(Self.frame().prefix(50))
        #expect(MediaProbe.probe(file)?.durationMs == MediaProbeExpect.ms(10 * 1_024, 44_100))
    }

    @Test func aLoneSyncPairOrAReservedRateIsNotAAC() {
        #expect(MediaType.sniff([0xFF, 0xF1, 0x50, 0x80, 0x00, 0x1F, 0xFC] + [UInt8](repeating: 0, count: 100)) == nil)
        #expect(MediaType.sniff((0..<3).flatMap { _ in Self.frame(rateIndex: 13) }) == nil)
        // An MP3 frame header (layer III) stays MP3, not AAC.
        #expect(MediaType.sniff([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 500)) != .aac)
    }
}

enum MediaProbeExpect {
    /// Whole milliseconds of `samples` at `rate`, rounded down.
    static func ms(_ samples: Int, _ rate: Int) -> Int { samples * 1_000 / rate }
}

import ParleyFiles
import Testing

@Suite("WAV (RIFF WAVE)")
struct WAVProbeTests {
    typealias W = WAVWriter

    @Test func dataSizeOverByteRate() {
        let file = W.file([W.fmt(), W.chunk("data", [UInt8](repeating: 0, count: 352_800))])
        #expect(MediaProbe.probe(file) == MediaInfo(type: .wav, durationMs: 2_000))
    }

    @Test func extraChunksWithOddSizesAndTheirPadding() {
        let list = W.chunk("LIST", Array("INFOISFT".utf8) + W.u32(5) + Array("Lavf\0".utf8))  // 17 bytes + pad.
        let file = W.file([W.chunk("JUNK", [0, 0, 0]), W.fmt(channels: 1, sampleRate: 8_000), list,
                           W.chunk("data", [UInt8](repeating: 0, count: 48_000))])
        #expect(MediaProbe.probe(file)?.durationMs == 3_000)
    }

    @Test func aMissingPadByteIsTolerated() {
        let list = W.chunk("LIST", Array("INFOIART".utf8) + W.u32(3) + Array("ab\0".utf8), pad: false)
        let file = W.file([W.fmt(channels: 1, sampleRate: 16_000), list, W.chunk("data", [UInt8](repeating: 0, count: 16_000))])
        #expect(MediaProbe.probe(file)?.durationMs == 500)
    }

    @Test func anOversizedDataChunkCountsTheBytesPresent() {
        // A streaming writer's placeholder size, never fixed up: 88 200 bytes are really there.
        let data = W.chunk("data", [UInt8](repeating: 0, count: 88_200), declaredSize: 0xFFFF_FFFF)
        #expect(MediaProbe.probe(W.file([W.fmt(), data]))?.durationMs == 500)
    }

    @Test func compressedFormatsUseTheFactSampleCount() {
        // IMA ADPCM (0x11) with an average byte rate that is only approximate; fact says 22 050 samples.
        let file = W.file([W.fmt(format: 0x11, channels: 1, sampleRate: 22_050, bitsPerSample: 4, byteRate: 11_100),
                           W.chunk("fact", W.u32(22_050)), W.chunk("data", [UInt8](repeating: 0, count: 11_100))])
        #expect(MediaProbe.probe(file)?.durationMs == 1_000)
    }

    @Test func withoutFmtTheDurationIsUnknown() {
        let file = W.file([W.chunk("data", [UInt8](repeating: 0, count: 100))])
        #expect(MediaProbe.probe(file) == MediaInfo(type: .wav))
    }
}

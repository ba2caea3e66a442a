import ParleyFiles
import Testing

@Suite("MP3 (ISO/IEC 11172-3, 13818-3; ID3v2; Xing/Info, LAME, VBRI)")
struct MPEGAudioProbeTests {
    typealias W = MP3Writer

    /// `count` CBR frames of MPEG-1 Layer III, 128 kbit/s at 48 kHz: 384 bytes and 24 ms each.
    static func cbr48k(_ count: Int) -> [UInt8] {
        (0..<count).flatMap { _ in W.frame(W.header(bitrateIndex: 9, rateIndex: 1), length: 384) }
    }

    @Test func walkingConstantBitrateFrames() {
        #expect(MediaProbe.probe(Self.cbr48k(125)) == MediaInfo(type: .mp3, durationMs: 3_000))
    }

    @Test func paddedFramesAt44100AreCountedByTheirRealLength() {
        // 128 kbit/s at 44.1 kHz: 417 bytes, 418 when padded; 49 frames × 1152 / 44100 = 1280 ms.
        let file = (0..<49).flatMap { index in
            let padded = index % 3 != 0
            return W.frame(W.header(bitrateIndex: 9, padded: padded), length: padded ? 418 : 417)
        }
        #expect(MediaProbe.probe(file)?.durationMs == 1_280)
    }

    @Test func mpeg2AndMpeg25LayerIIIHave576SamplesPerFrame() {
        // MPEG-2, 64 kbit/s at 24 kHz: 72 × 64000 / 24000 = 192 bytes, 24 ms per frame.
        let mpeg2 = (0..<50).flatMap { _ in W.frame(W.header(version: 2, bitrateIndex: 8, rateIndex: 1, mono: true), length: 192) }
        #expect(MediaProbe.probe(mpeg2)?.durationMs == 1_200)
        // MPEG-2.5, 32 kbit/s at 12 kHz: 192 bytes, 48 ms per frame.
        let mpeg25 = (0..<25).flatMap { _ in W.frame(W.header(version: 0, bitrateIndex: 4, rateIndex: 1), length: 192) }
        #expect(MediaProbe.probe(mpeg25)?.durationMs == 1_200)
    }

    @Test func id3v2TagsWithAndWithoutFooterAreSkipped() {
        #expect(MediaProbe.probe(W.id3(size: 300) + Self.cbr48k(50))?.durationMs == 1_200)
        #expect(MediaProbe.probe(W.id3(size: 1000, footer: true) + Self.cbr48k(50))?.durationMs == 1_200)
        // Two tags in a row, and zero padding a tagger left before the first frame.
        let file = W.id3(size: 20) + W.id3(size: 200) + [UInt8](repeating: 0, count: 77) + Self.cbr48k(50)
        #expect(MediaProbe.probe(file)?.durationMs == 1_200)
    }

    @Test func theWalkStopsAtAnID3v1TagOrGarbage() {
        #expect(MediaProbe.probe(Self.cbr48k(50) + W.id3v1)?.durationMs == 1_200)
        #expect(MediaProbe.probe(Self.cbr48k(50) + Array("not audio at all".utf8))?.durationMs == 1_200)
        // A frame cut off by the end of the file is not counted.
        #expect(MediaProbe.probe(Array(Self.cbr48k(50).dropLast(100)))?.durationMs == 1_176)
    }

    @Test func xingFrameCountGivesTheDurationWithoutWalking() {
        // Only 3 real frames follow, but the tag says 2500: 2500 × 24 ms.
        let header = W.header(bitrateIndex: 9, rateIndex: 1)
        let file = W.id3(size: 64) + W.xingFrame(header, length: 384, frames: 2_500, tag: "Xing") + Self.cbr48k(3)
        #expect(MediaProbe.probe(file) == MediaInfo(type: .mp3, durationMs: 60_000))
    }

    @Test func lameDelayAndPaddingAreTrimmed() {
        // What ffmpeg's encoder writes for 2 s of 44.1 kHz audio: 78 frames, delay 576, padding 1080;
        // 78 × 1152 − 576 − 1080 = 88 200 samples = 2 000 ms.
        let header = W.header(bitrateIndex: 5)  // 64 kbit/s: 208 bytes unpadded.
        let file = W.xingFrame(header, length: 208, frames: 78, delay: 576, padding: 1080)
            + (0..<78).flatMap { _ in W.frame(header, length: 208) }
        #expect(MediaProbe.probe(file)?.durationMs == 2_000)
    }

    @Test func monoMpeg2XingSitsAfterNineBytesOfSideInformation() {
        let header = W.header(version: 2, bitrateIndex: 8, rateIndex: 1, mono: true)
        let file = W.xingFrame(header, length: 192, sideInfo: 9, frames: 1_000) + (0..<5).flatMap { _ in W.frame(header, length: 192) }
        #expect(MediaProbe.probe(file)?.durationMs == 24_000)
    }

    @Test func vbriFrameCount() {
        let header = W.header(bitrateIndex: 9, rateIndex: 1)
        let file = W.vbriFrame(header, length: 384, frames: 1_500) + Self.cbr48k(2)
        #expect(MediaProbe.probe(file)?.durationMs == 36_000)
    }

    @Test func aTagFrameWithoutACountIsNotAudio() {
        // Xing flags 0: no frame count, so the walk runs and skips the (silent) tag frame.
        let header = W.header(bitrateIndex: 9, rateIndex: 1)
        var tagFrame = W.xingFrame(header, length: 384, frames: 0, tag: "Xing")
        tagFrame.replaceSubrange(40..<44, with: [0, 0, 0, 0])
        #expect(MediaProbe.probe(tagFrame + Self.cbr48k(10))?.durationMs == 240)
    }

    @Test func signaturesThatAreNotMPEGAudio() {
        // An ID3 tag in front of text, and AAC ADTS (sync bits with layer 00) are not MP3.
        #expect(MediaProbe.probe(W.id3(size: 10) + Array("hello, this is not audio".utf8)) == nil)
        let adts: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC] + [UInt8](repeating: 0, count: 64)
        #expect(MediaType.sniff(adts) == nil)
        #expect(MediaProbe.probe(adts) == nil)
        // A lone frame header whose next "frame" is garbage.
        #expect(MediaProbe.probe(W.header(bitrateIndex: 9, rateIndex: 1) + [UInt8](repeating: 0x11, count: 1000)) == nil)
    }
}

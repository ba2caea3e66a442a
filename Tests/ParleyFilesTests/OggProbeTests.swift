import ParleyFiles
import Testing

@Suite("Ogg Opus and Ogg Vorbis (RFC 3533, RFC 7845, Vorbis I)")
struct OggProbeTests {
    typealias W = OggWriter

    @Test func theCRCIsTheOggOne() {
        // The CRC-32/MPEG-2-style check value of "123456789" with Ogg's parameters (init 0, no XOR).
        #expect(W.crc(Array("123456789".utf8)) == 0x89A1_897F)
    }

    @Test func opusDurationIsTheLastGranuleLessPreSkipAt48kHz() {
        let file = W.opusFile(granules: [19_512, 48_312, 77_112, 96_312])
        #expect(MediaProbe.probe(file) == MediaInfo(type: .ogg, durationMs: 2_000))
    }

    @Test func aLongOpusVoiceMessage() {
        let file = W.opusFile(preSkip: 3_840, granules: [960_000, 2_883_840])
        #expect(MediaProbe.probe(file)?.durationMs == 60_000)
    }

    @Test func pagesWithoutAFinishedPacketAreIgnored() {
        var file = W.opusFile(granules: [48_312])
        file += W.page(sequence: 3, granule: UInt64.max, packets: [[UInt8](repeating: 1, count: 200)])
        #expect(MediaProbe.probe(file)?.durationMs == 1_000)
    }

    @Test func aPageWithABadCRCEndsTheWalk() {
        var file = W.opusFile(granules: [48_312])
        file += W.page(sequence: 3, granule: 96_312, eos: true, packets: [[1, 2, 3]], corruptCRC: true)
        #expect(MediaProbe.probe(file)?.durationMs == 1_000)
        // So does a page cut off by the end of the file.
        let whole = W.opusFile(granules: [48_312, 96_312])
        #expect(MediaProbe.probe(Array(whole.dropLast(10)))?.durationMs == 1_000)
    }

    @Test func otherLogicalStreamsAreNotCounted() {
        var file = W.opusFile(granules: [48_312])
        file += W.page(serial: 99, sequence: 0, granule: 9_999_999, bos: true, packets: [[0x80] + Array("theora".utf8)])
        #expect(MediaProbe.probe(file)?.durationMs == 1_000)
    }

    @Test func vorbisUsesItsOwnSampleRate() {
        var file = W.page(sequence: 0, granule: 0, bos: true, packets: [W.vorbisHead(sampleRate: 44_100)])
        file += W.page(sequence: 1, granule: 0, packets: [[3] + Array("vorbis".utf8) + [UInt8](repeating: 0, count: 20)])
        file += W.page(sequence: 2, granule: 44_100, packets: [[UInt8](repeating: 0x55, count: 600)])
        file += W.page(sequence: 3, granule: 88_200, eos: true, packets: [[UInt8](repeating: 0x55, count: 300)])
        #expect(MediaProbe.probe(file) == MediaInfo(type: .ogg, durationMs: 2_000))
    }

    @Test func oggThatIsNotOpusOrVorbisIsNotAudio() {
        let theora = W.page(sequence: 0, granule: 0, bos: true, packets: [[0x80] + Array("theora".utf8) + [UInt8](repeating: 0, count: 35)])
        #expect(MediaProbe.probe(theora) == nil)
        #expect(MediaProbe.probe(Array("OggS".utf8) + [UInt8](repeating: 0, count: 100)) == nil)
    }

    @Test func onlyTheHeadersMeansNoAudioYet() {
        #expect(MediaProbe.probe(W.opusFile(granules: []))?.durationMs == 0)
    }
}

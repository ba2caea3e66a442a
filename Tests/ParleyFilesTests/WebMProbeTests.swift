import ParleyFiles
import Testing

@Suite("WebM (RFC 8794 EBML, RFC 9559 Matroska)")
struct WebMProbeTests {
    typealias W = WebMWriter

    @Test func aLiveVoiceRecordingIsAudioWithTheSpanOfItsBlocks() {
        // MediaRecorder's WebM: unknown sizes, no Duration; blocks from 0 to 2 480 ms.
        let file = W.liveRecording(lastMs: 2_480)
        #expect(MediaType.sniff(file) == .webm)
        #expect(MediaProbe.probe(file) == MediaInfo(type: .weba, durationMs: 2_480))
        #expect(MediaType.weba.kind == .audio && MediaType.weba.contentType == "audio/webm")
    }

    @Test func aLiveVideoRecordingIsVideoWithItsPictureSize() {
        let file = W.liveRecording(lastMs: 3_000, width: 640, height: 480)
        #expect(MediaProbe.probe(file) == MediaInfo(type: .webm, durationMs: 3_000, width: 640, height: 480))
        #expect(MediaType.webm.kind == .video && MediaType.webm.contentType == "video/webm")
    }

    @Test func aStatedDurationWinsInItsTimestampScale() {
        // Duration 1 234.5 ms in units of 10 µs, and blocks that would say otherwise.
        let file = W.header() + W.segment(W.info(durationMs: 1_234.5, scale: 10_000) + W.tracks()
            + W.cluster(at: 0, [W.block(relative: 0), W.block(relative: 40)]))
        #expect(MediaProbe.probe(file)?.durationMs == 1_235)   // rounded half up
    }

    @Test func blockTimesAreInTheTimestampScaleAndMayBeNegative() {
        // Scale 100 µs: clusters at 0 and 20 000 units (2 s), a block 50 units (5 ms) before its cluster.
        let file = W.header() + W.segment(W.info(scale: 100_000) + W.tracks()
            + W.cluster(at: 0, [W.block(relative: 0)]) + W.cluster(at: 20_000, [W.block(relative: -50), W.block(relative: 10_000)]))
        #expect(MediaProbe.probe(file)?.durationMs == 3_000)
    }

    @Test func anUnknownSizeClusterEndsAtTheNextTopLevelElement() {
        // Cues after an open Cluster: its elements are not the Cluster's blocks, the walk goes on.
        let cues = W.element([0x1C, 0x53, 0xBB, 0x6B], [UInt8](repeating: 0xA3, count: 30))
        let file = W.header() + W.segment(W.info() + W.tracks()
            + W.cluster(at: 0, [W.block(relative: 0), W.block(relative: 500)], unknownSize: true) + cues
            + W.cluster(at: 1_000, [W.block(relative: 700)], unknownSize: true), unknownSize: true)
        #expect(MediaProbe.probe(file)?.durationMs == 1_700)
    }

    @Test func aCutOffRecordingCountsWhatIsThere() {
        let whole = W.liveRecording(lastMs: 2_480)
        let cut = MediaProbe.probe(Array(whole.prefix(whole.count * 2 / 3)))
        #expect(cut?.type == .weba)
        #expect((cut?.durationMs ?? 0) > 1_000 && (cut?.durationMs ?? .max) < 2_480)
    }

    @Test func otherMatroskaAndTracklessFilesAreRefused() {
        // A Matroska file is not WebM (its codecs are anyone's); a WebM file with no track is nothing.
        let matroska = W.header(docType: "matroska") + W.segment(W.info() + W.tracks())
        #expect(MediaType.sniff(matroska) == nil && MediaProbe.probe(matroska) == nil)
        let trackless = W.header() + W.segment(W.info() + W.tracks(audio: false))
        #expect(MediaProbe.probe(trackless) == nil)
        #expect(MediaProbe.probe(W.header()) == nil)
    }
}

import ParleyFiles
import ParleyTestSupport
import Testing

@Suite("MP4, MOV and M4A (ISO/IEC 14496-12, QuickTime)")
struct ISOMediaProbeTests {
    typealias W = ISOWriter

    @Test func aStoryLengthVideoJustUnderAMinuteAtTimescale600() throws {
        let file = W.movie(moov: W.videoMoov(timescale: 600, duration: 35_400))
        #expect(MediaProbe.probe(file) == MediaInfo(type: .mp4, durationMs: 59_000, width: 1280, height: 720))
    }

    @Test func aVideoJustOverAMinuteAtTimescale90000() throws {
        let file = W.movie(moov: W.videoMoov(timescale: 90_000, duration: 5_490_000, width: 1920, height: 1080))
        #expect(MediaProbe.probe(file) == MediaInfo(type: .mp4, durationMs: 61_000, width: 1920, height: 1080))
    }

    @Test func moovBeforeOrAfterMdatReadsTheSame() throws {
        let moov = W.videoMoov(timescale: 600, duration: 1_234)
        let first = try #require(MediaProbe.probe(W.movie(moovFirst: true, moov: moov)))
        let last = try #require(MediaProbe.probe(W.movie(moovFirst: false, moov: moov)))
        #expect(first == last)
        #expect(first.durationMs == 2_057)  // 1234 / 600 s = 2056.67 ms, rounded.
    }

    @Test func version1HeadersWith64BitDurations() throws {
        // 5 000 000 000 / 90 000 s = 55 555.5556 s: a duration that needs more than 32 bits.
        let file = W.movie(moov: W.videoMoov(timescale: 90_000, duration: 5_000_000_000, version: 1, withSound: false))
        #expect(MediaProbe.probe(file) == MediaInfo(type: .mp4, durationMs: 55_555_556, width: 1280, height: 720))
    }

    @Test func aZeroMovieDurationFallsBackToTheLongestTrack() throws {
        let moov = W.box("moov", W.mvhd(timescale: 1000, duration: 0)
            + W.trak("vide", id: 1, timescale: 15_360, duration: 30_720, width: 640, height: 360)
            + W.trak("soun", id: 2, timescale: 44_100, duration: 110_250))
        #expect(MediaProbe.probe(W.movie(moov: moov))?.durationMs == 2_500)
    }

    @Test func anUnknownMovieDurationFallsBackToTheFragmentDuration() throws {
        // Fragmented MP4: mvhd says all ones ("unknown"), mvex/mehd gives the total.
        let mehd = W.fullBox("mehd", version: 0, W.u32(45_000))
        let moov = W.box("moov", W.mvhd(timescale: 1000, duration: 0xFFFF_FFFF) + W.box("mvex", mehd)
            + W.trak("vide", id: 1, timescale: 90_000, duration: 0, width: 640, height: 360))
        #expect(MediaProbe.probe(W.movie(moov: moov))?.durationMs == 45_000)
    }

    @Test func fragmentedMP4SumsItsTrackRuns() throws {
        // moov with empty tracks and trex defaults; two fragments: one run with per-sample durations
        // (flags 0x301: data offset, duration, size), one relying on the trex default duration.
        let trex = W.fullBox("trex", version: 0, W.u32(1) + W.u32(1) + W.u32(512) + W.u32(0) + W.u32(0))
        let moov = W.box("moov", W.mvhd(timescale: 1000, duration: 0) + W.box("mvex", trex)
            + W.trak("vide", id: 1, timescale: 15_360, duration: 0, width: 320, height: 240))
        func moof(_ trun: [UInt8]) -> [UInt8] {
            W.box("moof", W.fullBox("mfhd", version: 0, W.u32(1))
                + W.box("traf", W.fullBox("tfhd", version: 0, flags: 0x02_0000, W.u32(1)) + trun))
        }
        let explicit = W.fullBox("trun", version: 0, flags: 0x301, W.u32(30) + W.u32(0)
            + (0..<30).flatMap { _ in W.u32(512) + W.u32(100) })
        let byDefault = W.fullBox("trun", version: 0, flags: 0x001, W.u32(30) + W.u32(0))
        let file = W.ftyp("iso5", ["iso5", "iso6", "mp41"]) + moov + moof(explicit) + W.mdat(30) + moof(byDefault) + W.mdat(30)
        // 60 samples × 512 / 15 360 = 2 s.
        #expect(MediaProbe.probe(file) == MediaInfo(type: .mp4, durationMs: 2_000, width: 320, height: 240))
    }

    @Test func largesizeAndRunToEndBoxes() throws {
        let moov = W.videoMoov(timescale: 600, duration: 6_000)
        // A 64-bit mdat before moov, and a moov whose largesize form wraps the movie.
        let large = W.ftyp("mp42", ["mp42", "isom"]) + W.largeBox("mdat", [UInt8](repeating: 7, count: 100))
            + W.largeBox("moov", Array(moov.dropFirst(8)))
        #expect(MediaProbe.probe(large)?.durationMs == 10_000)
        // moov first, then an mdat of size 0 running to the end of the file.
        let open = W.ftyp("mp42", ["mp42"]) + moov + W.openBox("mdat", [UInt8](repeating: 0xFF, count: 333))
        #expect(MediaProbe.probe(open)?.durationMs == 10_000)
    }

    @Test func freeSkipAndWideBoxesAreSteppedOver() throws {
        let moov = W.videoMoov(timescale: 600, duration: 600)
        let file = W.ftyp("qt  ", ["qt  "]) + W.box("wide", []) + W.mdat(500) + W.box("skip", [1, 2, 3])
            + W.box("free", [UInt8](repeating: 0, count: 40)) + moov
        #expect(MediaProbe.probe(file) == MediaInfo(type: .mov, durationMs: 1_000, width: 1280, height: 720))
    }

    @Test func portraitVideoReportsItsDisplaySize() throws {
        let moov = W.videoMoov(timescale: 600, duration: 3_000, width: 1920, height: 1080, quarterTurn: true)
        let info = MediaProbe.probe(W.movie(major: "qt  ", compatible: ["qt  "], moov: moov))
        #expect(info == MediaInfo(type: .mov, durationMs: 5_000, width: 1080, height: 1920))
    }

    @Test func theBrandsDecideTheType() throws {
        let video = W.videoMoov(timescale: 600, duration: 600)
        let sound = W.box("moov", W.mvhd(timescale: 44_100, duration: 88_200) + W.trak("soun", id: 1, timescale: 44_100, duration: 88_200))
        #expect(MediaProbe.probe(W.movie(major: "M4A ", compatible: ["M4A ", "isom", "iso2"], moov: sound))
            == MediaInfo(type: .m4a, durationMs: 2_000))
        #expect(MediaProbe.probe(W.movie(major: "qt  ", compatible: ["qt  "], moov: video))?.type == .mov)
        #expect(MediaProbe.probe(W.movie(major: "mp42", compatible: ["mp42", "isom"], moov: video))?.type == .mp4)
        #expect(MediaProbe.probe(W.movie(major: "3gp5", compatible: ["3gp5", "isom"], moov: video))?.type == .mp4)
        #expect(MediaProbe.probe(W.movie(major: "M4V ", compatible: ["M4V ", "M4A ", "mp42"], moov: video))?.type == .mp4)
        // An unknown major brand is judged by its compatible brands.
        #expect(MediaProbe.probe(W.movie(major: "XYZ1", compatible: ["XYZ1", "mp41"], moov: video))?.type == .mp4)
        #expect(MediaProbe.probe(W.movie(major: "XYZ1", compatible: ["XYZ1"], moov: video)) == nil)
    }

    @Test func anMP4WithSoundButNoPictureIsM4A() throws {
        let sound = W.box("moov", W.mvhd(timescale: 1000, duration: 7_500) + W.trak("soun", id: 1, timescale: 48_000, duration: 360_000))
        #expect(MediaProbe.probe(W.movie(major: "isom", moov: sound)) == MediaInfo(type: .m4a, durationMs: 7_500))
        #expect(MediaProbe.probe(W.movie(major: "qt  ", compatible: ["qt  "], moov: sound))?.type == .m4a)
        // And an "M4A" file that really carries a picture track is a video.
        let video = W.videoMoov(timescale: 600, duration: 600)
        #expect(MediaProbe.probe(W.movie(major: "M4A ", compatible: ["M4A "], moov: video))?.type == .mp4)
    }

    @Test func withoutAMoovOnlyTheBrandIsKnown() throws {
        let file = W.ftyp("M4A ", ["M4A ", "isom"]) + W.mdat(1000)
        #expect(MediaProbe.probe(file) == MediaInfo(type: .m4a))
    }
}

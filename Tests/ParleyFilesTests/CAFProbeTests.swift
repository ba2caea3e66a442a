import ParleyFiles
import Testing

@Suite("CAF (Core Audio Format)")
struct CAFProbeTests {
    typealias C = CAFWriter

    @Test func anIPhoneAACRecordingCountsItsValidFrames() {
        let file = C.iPhoneAAC(seconds: 2.5)
        #expect(MediaType.sniff(file) == .caf)
        #expect(MediaProbe.probe(file) == MediaInfo(type: .caf, durationMs: 2_500), "priming and remainder left out")
        #expect(MediaType.caf.kind == .audio && MediaType.caf.contentType == "audio/x-caf")
    }

    @Test func opusWithoutValidFramesCountsPacketsLessPrimingAndRemainder() {
        let file = C.file([C.desc(sampleRate: 48_000, format: "opus", bytesPerPacket: 0, framesPerPacket: 960),
                           C.pakt(packets: 100, validFrames: 0, priming: 312, remainder: 648), C.data([1, 2, 3])])
        #expect(MediaProbe.probe(file)?.durationMs == 1_980)   // (96 000 − 960) / 48 kHz
    }

    @Test func linearPCMCountsTheBytesOfItsDataChunk() {
        let stereo16 = C.desc(sampleRate: 44_100, format: "lpcm", bytesPerPacket: 4, framesPerPacket: 1, channels: 2, bits: 16)
        #expect(MediaProbe.probe(C.file([stereo16, C.data([UInt8](repeating: 0, count: 176_400))]))?.durationMs == 1_000)
        // A recorder that could not go back writes -1: the data runs to the end of the file.
        #expect(MediaProbe.probe(C.file([stereo16, C.chunk("free", [0, 0]), C.data([UInt8](repeating: 0, count: 88_200), toTheEnd: true)]))?
            .durationMs == 500)
    }

    @Test func whatIsNotCAFOrCannotBeReadSaysSo() {
        #expect(MediaType.sniff(Array("caff".utf8) + [0x00, 0x02, 0x00, 0x00]) == nil, "only version 1 exists")
        #expect(MediaProbe.probe(C.file([])) == MediaInfo(type: .caf), "no desc: a CAF file of unknown length")
        let noRate = C.file([C.desc(sampleRate: 0, format: "lpcm", bytesPerPacket: 2, framesPerPacket: 1), C.data([0, 0])])
        #expect(MediaProbe.probe(noRate) == MediaInfo(type: .caf))
        let file = C.iPhoneAAC(seconds: 1)
        for length in 0...file.count {
            let info = MediaProbe.probe(Array(file.prefix(length)))
            #expect(info == nil || info?.type == .caf)
        }
    }
}

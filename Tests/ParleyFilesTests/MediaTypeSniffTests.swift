import ParleyFiles
import ParleyTestSupport
import Testing

@Suite("Sniffing")
struct MediaTypeSniffTests {
    @Test func theClientsContentTypeNeverMattersOnlyTheBytes() {
        #expect(MediaProbe.probe(Array("<html>hello</html>".utf8)) == nil)
        #expect(MediaProbe.probe([]) == nil)
        #expect(MediaType.sniff(Array("RIFF\0\0\0\0AVI ".utf8)) == nil)
    }

    @Test func kindsOfProbedFiles() {
        #expect(MediaProbe.probe(ImageProbeTests.onePixelPNG)?.type.kind == .image)
        #expect(MediaProbe.probe(OggWriter.opusFile(granules: [960]))?.type.kind == .audio)
        let video = ISOWriter.movie(moov: ISOWriter.videoMoov(timescale: 600, duration: 600))
        #expect(MediaProbe.probe(video)?.type.kind == .video)
        #expect(MediaProbe.probe(video)?.type.contentType == "video/mp4")
    }
}

@Suite("Sniffing signatures")
struct MediaTypeSignatureTests {
    @Test func eachSignature() {
        #expect(MediaType.sniff([0xFF, 0xD8, 0xFF, 0xE1]) == .jpeg)
        #expect(MediaType.sniff(ImageProbeTests.onePixelPNG) == .png)
        #expect(MediaType.sniff(Array("GIF87a".utf8)) == .gif)
        #expect(MediaType.sniff(WAVWriter.file([])) == .wav)
        #expect(MediaType.sniff(Array("OggS".utf8)) == .ogg)
        #expect(MediaType.sniff(Array("ID3".utf8)) == .mp3)
        #expect(MediaType.sniff(MP3Writer.header(bitrateIndex: 9)) == .mp3)
        #expect(MediaType.sniff(ISOWriter.ftyp("qt  ", ["qt  "])) == .mov)
        #expect(MediaType.sniff(ISOWriter.ftyp("M4A ", ["M4A ", "mp42", "isom"])) == .m4a)
        #expect(MediaType.sniff(ISOWriter.ftyp("isom", ["isom", "avc1"])) == .mp4)
        #expect(MediaType.sniff(ISOWriter.ftyp("heic", ["mif1", "heic"])) == .heic)
    }

    @Test func mpegSyncBitsAloneAreNotMP3() {
        // Reserved version 01, reserved layer 00 (AAC ADTS), bitrate index 15, sample rate index 3.
        for header: [UInt8] in [[0xFF, 0xEB, 0x90, 0x00], [0xFF, 0xF9, 0x50, 0x80], [0xFF, 0xFB, 0xF0, 0x00], [0xFF, 0xFB, 0x9C, 0x00]] {
            #expect(MediaType.sniff(header) == nil)
        }
    }
}

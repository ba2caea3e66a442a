import ParleyFiles
import ParleyTestSupport
import Testing

/// Malformed uploads must never trap: every prefix of a valid file, random bytes, random bytes
/// behind each signature and valid files with bytes flipped all return nil or a value.
@Suite("Malformed input")
struct RobustnessTests {
    /// Small valid files of every kind the probe reads.
    static let samples: [(name: String, bytes: [UInt8], type: MediaType)] = [
        ("mp4", ISOWriter.movie(moovFirst: false, moov: ISOWriter.videoMoov(timescale: 600, duration: 1_200)), .mp4),
        ("mov-v1", ISOWriter.movie(major: "qt  ", compatible: ["qt  "], moov: ISOWriter.videoMoov(timescale: 90_000, duration: 5_000_000_000, version: 1)), .mov),
        ("heic", HEIFProbeTests.heic(primaryRotation: 1), .heic),
        ("mp3-xing", MP3Writer.xingFrame(MP3Writer.header(bitrateIndex: 5), length: 208, frames: 78, delay: 576, padding: 1080)
            + (0..<4).flatMap { _ in MP3Writer.frame(MP3Writer.header(bitrateIndex: 5), length: 208) }, .mp3),
        ("mp3-id3", MP3Writer.id3(size: 30, footer: true) + MPEGAudioProbeTests.cbr48k(4) + MP3Writer.id3v1, .mp3),
        ("ogg", OggWriter.opusFile(granules: [960, 1_920]), .ogg),
        ("webm-live", WebMWriter.liveRecording(lastMs: 1_200, width: 320, height: 240), .webm),
        ("webm-sized", WebMWriter.header() + WebMWriter.segment(WebMWriter.info(durationMs: 900) + WebMWriter.tracks()
            + WebMWriter.cluster(at: 0, [WebMWriter.block(relative: 0), WebMWriter.block(relative: 880)])), .weba),
        ("wav", WAVWriter.file([WAVWriter.chunk("LIST", [1, 2, 3]), WAVWriter.fmt(), WAVWriter.chunk("data", [UInt8](repeating: 0, count: 400))]), .wav),
        ("caf", CAFWriter.iPhoneAAC(seconds: 0.1), .caf),
        ("png", ImageProbeTests.onePixelPNG, .png),
        ("jpeg", ImageProbeTests.jpeg(width: 64, height: 48), .jpeg),
    ]

    @Test(arguments: samples.map(\.name))
    func everyTruncationIsSafe(name: String) throws {
        let sample = try #require(Self.samples.first { $0.name == name })
        #expect(MediaProbe.probe(sample.bytes)?.type == sample.type)
        for length in 0...sample.bytes.count {
            let info = MediaProbe.probe(Array(sample.bytes.prefix(length)))
            if let info {
                #expect(info.type == sample.type || (info.type.kind == sample.type.kind), "\(name) cut at \(length)")
                #expect((info.durationMs ?? 0) >= 0 && (info.width ?? 1) > 0 && (info.height ?? 1) > 0)
            }
        }
    }

    @Test(arguments: samples.map(\.name))
    func flippedBytesAreSafe(name: String) throws {
        let sample = try #require(Self.samples.first { $0.name == name })
        var random = SeededRandom(seed: UInt64(name.utf8.count) &* 7919)
        for _ in 0..<1_500 {
            var bytes = sample.bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] = [0x00, 0xFF, 0x7F, 0x80, 0x01, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            }
            _ = MediaProbe.probe(bytes)
        }
    }

    @Test func randomBytesBehindEverySignatureAreSafe() {
        let signatures: [[UInt8]] = [
            [], [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("GIF89a".utf8),
            Array("RIFF\u{10}\0\0\0WAVE".utf8), Array("OggS".utf8), Array("ID3".utf8), [0xFF, 0xFB, 0x90, 0x00],
            [0, 0, 0, 0x10] + Array("ftypisom".utf8), [0, 0, 0, 0x10] + Array("ftypheic".utf8), [0, 0, 0, 1] + Array("ftypqt  ".utf8),
        ]
        var random = SeededRandom(seed: 2026)
        for signature in signatures {
            for _ in 0..<600 {
                let tail = (0..<Int.random(in: 0...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                _ = MediaProbe.probe(signature + tail)
            }
        }
    }

    @Test func hostileSizesAreSafe() {
        typealias W = ISOWriter
        // Boxes claiming 2^64 − 1 bytes, sizes smaller than their header, and counts that overrun.
        let files: [[UInt8]] = [
            W.ftyp("isom", ["isom"]) + W.u32(1) + Array("moov".utf8) + W.u64(UInt64.max) + W.mvhd(timescale: 1, duration: 1),
            W.ftyp("isom", ["isom"]) + W.u32(4) + Array("moov".utf8) + W.mvhd(timescale: 1, duration: 1),
            W.ftyp("isom", ["isom"]) + W.box("moov", W.fullBox("mvhd", version: 1, [])),
            W.ftyp("isom", ["isom"]) + W.box("moov", W.mvhd(version: 1, timescale: 1, duration: UInt64.max - 1)),
            W.ftyp("heic", ["heic"]) + W.fullBox("meta", version: 0, W.box("iprp", W.box("ipco", W.fullBox("ispe", version: 0, W.u32(.max) + W.u32(.max)))
                + W.fullBox("ipma", version: 1, flags: 1, W.u32(.max) + W.u32(1) + [255]))) + W.fullBox("pitm", version: 1, W.u32(1)),
            Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + MPEGAudioProbeTests.cbr48k(2),
            Array("ID3".utf8) + [4, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF],
            WAVWriter.file([WAVWriter.fmt(sampleRate: 1, byteRate: 0), WAVWriter.chunk("data", [], declaredSize: 0xFFFF_FFFF)]),
            OggWriter.page(sequence: 0, granule: 1 << 63, bos: true, packets: [OggWriter.opusHead(preSkip: 65_535)]),
        ]
        for file in files { _ = MediaProbe.probe(file) }
        let huge = W.ftyp("isom", ["isom"]) + W.box("moov", W.mvhd(version: 1, timescale: 1, duration: UInt64.max - 1))
        #expect(MediaProbe.probe(huge)?.durationMs == nil)  // More milliseconds than an Int holds.
    }
}

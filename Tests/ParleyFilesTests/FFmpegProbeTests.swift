import Foundation
import ParleyTestSupport
import ParleyFiles
import Testing

/// Real files from a real encoder, when one is installed: ffmpeg writes 2 s of each format and the
/// probe must agree within ±50 ms. Skipped (not failed) where ffmpeg is absent; the byte-built
/// files in the other suites are the coverage that always runs.
@Suite("Real files from ffmpeg", .enabled(if: FFmpeg.path != nil, "ffmpeg is not installed"))
struct FFmpegProbeTests {

    /// (file name, ffmpeg arguments, expected type, expected width × height)
    static let cases: [(String, [String], MediaType, Int?, Int?)] = [
        ("v.mp4", ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
                   "-c:v", "mpeg4", "-c:a", "aac"], .mp4, 320, 240),
        ("v.mov", ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-c:v", "mpeg4", "-movflags", "+faststart"], .mov, 320, 240),
        ("frag.mp4", ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-c:v", "mpeg4", "-movflags", "frag_keyframe+empty_moov"],
         .mp4, 320, 240),
        ("a.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "aac"], .m4a, nil, nil),
        ("a-in.mp4", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "aac"], .m4a, nil, nil),
        ("a.mp3", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "libmp3lame"], .mp3, nil, nil),
        ("lsf.mp3", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050", "-c:a", "libmp3lame"], .mp3, nil, nil),
        // Without a LAME tag the encoder's priming and padding (about 25 ms at 44.1 kHz) are counted.
        ("cbr.mp3", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "libmp3lame", "-write_xing", "0"], .mp3, nil, nil),
        ("a.aac", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "aac", "-f", "adts"], .aac, nil, nil),
        ("a.ogg", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:a", "libopus"], .ogg, nil, nil),
        ("v.ogg", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "libvorbis"], .ogg, nil, nil),
        ("a.wav", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"], .wav, nil, nil),
        // CAF as iPhones record it: Opus (its packet table) and linear PCM (its data size). This
        // ffmpeg's CAF muxer does not take AAC; CAFProbeTests builds that one.
        ("opus.caf", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:a", "libopus"], .caf, nil, nil),
        ("pcm.caf", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-c:a", "pcm_s16le"], .caf, nil, nil),
    ]

    @Test(arguments: cases.map(\.0))
    func twoSecondsWithinFiftyMilliseconds(name: String) throws {
        let (_, arguments, type, width, height) = try #require(Self.cases.first { $0.0 == name })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent(name)

        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try #require(FFmpeg.path))
        process.arguments = ["-nostdin", "-v", "error", "-y"] + arguments + ["-t", "2", output.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            // This ffmpeg build lacks the encoder (e.g. no libopus): nothing to compare.
            withKnownIssue("ffmpeg could not write \(name)") { Issue.record("ffmpeg exited with \(process.terminationStatus)") }
            return
        }

        let info = try #require(MediaProbe.probe(Array(try Data(contentsOf: output))))
        #expect(info.type == type)
        let duration = try #require(info.durationMs)
        #expect(abs(duration - 2_000) <= 50, "\(name): \(duration) ms")
        #expect(info.width == width && info.height == height)
    }
}

import Foundation
import ParleyTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Voice messages in the formats an iPhone records (seeds 000, 002): CAF with Opus or PCM inside
/// and M4A (AAC), each made here by ffmpeg, uploaded through the API and accepted as audio with
/// its duration within ±50 ms.
@Suite struct VoiceMessageTests {
    static let ffmpeg: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin"
        return path.split(separator: ":").map { "\($0)/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// `seconds` of a tone at `rate`, encoded with `codec` into `name` (its extension picks the container).
    static func record(_ name: String, codec: String, rate: Int, seconds: Double) throws -> [UInt8] {
        let ffmpeg = try #require(Self.ffmpeg, "ffmpeg is not installed: `make test` installs it (scripts/install-deps.sh)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-voice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent(name)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate)",
                             "-ac", "1", "-c:a", codec, "-t", String(seconds), output.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg could not write \(name)")
        return Array(try Data(contentsOf: output))
    }

    @Test(arguments: [
        ("memo.caf", "libopus", 48_000, 3.0, "audio/x-caf"),
        ("memo-pcm.caf", "pcm_s16le", 16_000, 1.5, "audio/x-caf"),
        ("voice.m4a", "aac", 44_100, 2.0, "audio/mp4"),
    ])
    func aRecordingIsAcceptedWithItsDuration(name: String, codec: String, rate: Int, seconds: Double, contentType: String) async throws {
        let file = try Self.record(name, codec: codec, rate: rate, seconds: seconds)
        let parley = try await TestParley.start()
        try await parley.test { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let upload = try await client.call(.post, "/v1/attachments", raw: file, token: ann.accessToken,
                                               headers: [.contentType: "application/octet-stream"])
            #expect(upload.status == .created, "\(name): \(upload.text)")
            #expect(upload["kind"] as? String == "audio" && upload["contentType"] as? String == contentType, "\(upload.text)")
            let duration = try #require(upload["durationMs"] as? Int, "\(name): no duration in \(upload.text)")
            #expect(abs(duration - Int(seconds * 1000)) <= 50, "\(name): \(duration) ms for \(seconds) s")

            let id = try #require(upload["id"] as? String)
            let sent = try await client.call(.post, "/v1/dialogs/\(dialog)/messages",
                                             json: ["clientMessageId": name, "kind": "audio", "attachmentId": id], token: ann.accessToken)
            #expect(sent.status == .created, "\(sent.text)")
            let heard = try #require(try await client.history(bo, dialog).first?["attachment"] as? JSON)
            #expect(heard["durationMs"] as? Int == duration)
            let fetched = try await client.call(.get, "/v1/attachments/\(id)", token: bo.accessToken)
            #expect(fetched.bytes == file && fetched.headers[.contentType] == contentType)
        }
    }
}

import Foundation
import HummingbirdTesting
import ParleyCore
import ParleyTestSupport
import Testing

/// The web client's media and history in two Chromium contexts: older messages on scrolling up,
/// voice and video messages recorded by Chromium's MediaRecorder and played on the other side, a
/// video story, an audio-only call, camera off and mute in a video call, a missed call with its
/// badge. Tests/Peers/web_client_media_peer.py does it through the page; this checks what it saw.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(5)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                "needs Debian's chromium: scripts/test.sh installs it (apt-get install chromium)"))
struct WebClientMediaTests {
    struct Seen: Decodable {
        struct Recorded: Decodable { let kind: String; let contentType: String; let durationMs: Int }
        struct AudioCall: Decodable { let audioPackets: Int; let videoFrames: Int; let videoTransceivers: Int; let remoteElement: String }
        struct CameraOff: Decodable { let framesWhileOff: Int; let boSawIt: Bool; let framesAfterOn: Int }
        struct Mute: Decodable { let energyUnmuted: Double; let energyMuted: Double; let boSawIt: Bool }
        struct Entry: Decodable { let outcome: String; let direction: String; let shownMissed: Bool }
        let type: String
        var error: String?, step: String?
        var olderFirstPage: Int?, olderFirstShownAtOnce: Int?, olderAll: Int?, olderInOrder: Bool?
        var boPlayed: [String]?, boPlayedWebM: [String]?
        var recorded: [Recorded]?
        var storyRecordedAs: String?
        var boWatchedVideoStory: Bool?
        var videoStoryViewers: Int?
        var audioCall: [String: AudioCall]?
        var cameraOff: CameraOff?
        var mute: Mute?
        var missedBadge: String?
        var boFirstEntry: Entry?
        var badgeAfterOpening: Bool?, badgeStaysCleared: Bool?
        var screenshots: [String]?
        var problems: [String]?
    }

    @Test("Older messages, voice and video messages, a video story, an audio call, camera off and mute, a missed call")
    func mediaAndHistory() async throws {
        let python = try AiortcPeer.python()
        let parley = try await TestParley.start { $0.webDirectory = webClientDirectory }
        let shots = URL(fileURLWithPath: webClientDirectory).deletingLastPathComponent()
            .appendingPathComponent(".build/web-screenshots").path
        let started = ContinuousClock.now
        let ticking = parley.tickingInRealTime()   // history and messages in the order people made them
        defer { ticking.cancel() }
        try await parley.test(.live) { client in
            let peer = try AiortcPeer(python: python, script: AiortcPeer.script(named: "web_client_media_peer.py"), arguments: [
                "--base", "http://127.0.0.1:\(client.port!)", "--public-url", parley.config.publicBaseURL, "--screenshots", shots])
            defer { peer.kill() }
            let line = try await peer.nextLine(timeout: .seconds(280))
            let seen = try JSONDecoder().decode(Seen.self, from: Data(line.utf8))
            try #require(seen.type == "result", "\(seen.step ?? "?"): \(line)\n\(peer.stderr.suffix(4000))")

            // 75 messages: the chat opens on the newest page, and scrolling up brings the rest, in order.
            #expect((seen.olderFirstPage ?? 0) < 75 && seen.olderFirstShownAtOnce == 0, "first page: \(seen.olderFirstPage ?? -1)")
            #expect(seen.olderAll == 75 && seen.olderInOrder == true, "after scrolling: \(seen.olderAll ?? -1)")

            // What Chromium records is what the server keeps, with its length, and Bo's page plays it.
            // Chromium 156 records MP4 (Opus; VP9 and Opus); WebM (what Firefox and older Chromium record) too.
            let recorded = seen.recorded ?? []
            #expect(recorded.map(\.kind) == ["audio", "video", "audio", "video"], "\(recorded)")
            #expect(recorded.suffix(2).map(\.contentType) == ["audio/webm", "video/webm"], "\(recorded)")
            for file in recorded {
                #expect(file.durationMs >= 1_500 && file.durationMs <= 10_000, "\(file)")
                #expect(file.contentType.hasPrefix(file.kind + "/"), "\(file)")
            }
            #expect(seen.boPlayed == ["audio", "video"])
            #expect(seen.boPlayedWebM?.map { $0.hasPrefix("audio/webm") || $0.hasPrefix("video/webm") } == [true, true],
                    "\(seen.boPlayedWebM ?? [])")

            #expect(seen.storyRecordedAs?.hasPrefix("video/") == true)
            #expect(seen.boWatchedVideoStory == true && seen.videoStoryViewers == 1)

            // Audio only: no video transceiver on either side, audio arriving at both.
            for name in ["ann", "bo"] {
                let side = try #require(seen.audioCall?[name], "\(name)")
                #expect(side.audioPackets >= 50 && side.videoFrames == 0 && side.videoTransceivers == 0
                        && side.remoteElement == "audio", "\(name): \(side)")
            }

            // Camera off: Bo's screen says so and no frames arrive (a few in flight at most); they come back with it.
            let camera = try #require(seen.cameraOff)
            #expect(camera.boSawIt && camera.framesWhileOff <= 3 && camera.framesAfterOn >= 30, "\(camera)")
            // Mute: Bo's screen says so and what he hears carries no energy.
            let mute = try #require(seen.mute)
            #expect(mute.boSawIt && mute.energyUnmuted > 0 && mute.energyMuted < mute.energyUnmuted / 20, "\(mute)")

            // A call Ann gave up on is Bo's missed call: on the Calls badge until he looks.
            #expect(seen.missedBadge == "1")
            #expect(seen.boFirstEntry.map { $0.outcome == "missed" && $0.direction == "incoming" && $0.shownMissed } == true,
                    "\(String(describing: seen.boFirstEntry))")
            #expect(seen.badgeAfterOpening == true && seen.badgeStaysCleared == true)

            #expect((seen.problems ?? []).isEmpty, "\(seen.problems ?? [])")
            #expect((seen.screenshots ?? []).count >= 8, "\(seen.screenshots ?? [])")
            print("""
                web client media (Chromium ×2): recorded \(recorded.map { "\($0.kind) \($0.contentType) \($0.durationMs) ms" }); \
                audio call \(seen.audioCall?.mapValues(\.audioPackets) ?? [:]) packets; camera off \(camera.framesWhileOff) frames, \
                back \(camera.framesAfterOn); mute energy \(mute.energyUnmuted) → \(mute.energyMuted); \(ContinuousClock.now - started) in all
                """)
        }
    }
}

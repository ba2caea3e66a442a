import Foundation
import ParleyTestSupport
import Testing
@testable import ParleyRelay

/// Headless Chromium restarts ICE (`pc.restartIce()`) in the middle of an echo call with the
/// relay: the relay answers the new offer, Chromium moves to the new credentials on the same
/// DTLS association, and its video keeps decoding. Prints the seconds of media lost.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                "needs Debian's chromium: scripts/test.sh installs it (apt-get install chromium)"))
struct ChromiumRestartTests {
    @Test("Chromium's restartIce() mid-call: new credentials, the same DTLS, media keeps flowing")
    func restartIceMidCall() async throws {
        let python = try AiortcPeer.python()
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let peer = try AiortcPeer(python: python, script: AiortcPeer.script(named: "chromium_restart_peer.py"),
                                  arguments: ["--restart-after", "3", "--seconds-after", "6"])
        do {
            let offer = try await peer.next(timeout: .seconds(30))
            let (leg, answer) = try await relay.createLeg(offer: try #require(offer.sdp, "\(offer)"), owner: "chromium")
            try await relay.echo(leg)
            try peer.send(answer: answer)
            let restartOffer = try await peer.next(timeout: .seconds(40))
            #expect(restartOffer.restart == true, "\(restartOffer.error ?? "") \(peer.stderr.suffix(2000))")
            let restartAnswer = try await relay.restartICE(leg, offer: try #require(restartOffer.sdp))
            try peer.send(answer: restartAnswer)
            let result = try await peer.next(timeout: .seconds(40))
            #expect(result.type == "result", "\(result.error ?? "") \(peer.stderr.suffix(2000))")

            let before = result.videoFramesBefore ?? 0, after = (result.videoFrames ?? 0) - before
            #expect(before >= 30 && after >= 100, "video frames before \(before), after \(after)")
            #expect(result.connectionState == "connected" && !(result.connectionStates ?? []).contains("failed"), "\(result)")
            #expect(result.ufragBefore != nil && result.ufragAfter != result.ufragBefore, "Chromium uses the new credentials: \(result)")
            let stats = try #require(await relay.stats(for: leg))
            #expect(stats.iceRestarts == 1 && stats.state == .connected, "\(stats)")
            let counters = await relay.counters()
            #expect(counters[.srtpAuthFail] == 0)
            print("""
                chromium restartIce (relay): media lost \(result.videoGapSeconds ?? -1) s video, \(result.audioGapSeconds ?? -1) s audio \
                (longest video gap before the restart \(result.baselineVideoGapSeconds ?? -1) s); answer applied \
                \(result.restartAnsweredAfter ?? -1) s after restartIce(); frames before \(before), after \(after); \
                ufrag \(result.ufragBefore ?? "?") → \(result.ufragAfter ?? "?"); pair changes \(result.pairChanges ?? -1); \
                send address \(stats.sendAddress.map { "\($0)" } ?? "none"), switches \(stats.addressSwitches)
                """)
        } catch {
            Issue.record("\(error)\npeer stderr:\n\(peer.stderr.suffix(4000))")
        }
        peer.kill()
        await relay.shutdown()
    }
}

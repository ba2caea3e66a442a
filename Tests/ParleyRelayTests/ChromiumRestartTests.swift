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

extension ChromiumRestartTests {
    /// Chromium in an echo call under loss the relay makes (test-only hooks: 1 video packet in 15
    /// lost on the way in, 1 in 20 on the way out, after the relay kept it). Chromium negotiates
    /// RTX; its NACKs are answered by the relay's RTX resends from history and, for what the relay
    /// never got, by Chromium's own RTX, which comes back through the relay rewritten for it.
    /// Chromium's inbound-rtp stats count them as retransmissions received.
    @Test("Chromium under loss: resends arrive on the RTX stream the relay announced, and Chromium counts them")
    func retransmissionsAsRTX() async throws {
        let python = try AiortcPeer.python()
        var configuration = RelayConfiguration(host: "127.0.0.1", port: 0)
        configuration.testVideoLossInbound = 15
        configuration.testVideoLossOutbound = 20
        let relay = try await MediaRelay.start(configuration: configuration)
        let peer = try AiortcPeer(python: python, script: AiortcPeer.script(named: "chromium_restart_peer.py"),
                                  arguments: ["--restart-after", "0", "--seconds-after", "6"])
        do {
            let offer = try await peer.next(timeout: .seconds(30))
            let (leg, answer) = try await relay.createLeg(offer: try #require(offer.sdp, "\(offer)"), owner: "chromium")
            let fid = try #require(answer.split(separator: "\r\n").first { $0.hasPrefix("a=ssrc-group:FID ") }, "\(answer)")
            let relayRTX = try #require(fid.split(separator: " ").last.flatMap { UInt32($0) })
            try await relay.echo(leg)
            try peer.send(answer: answer)
            let result = try await peer.next(timeout: .seconds(40))
            #expect(result.type == "result", "\(result.error ?? "") \(peer.stderr.suffix(2000))")
            #expect((result.videoFrames ?? 0) >= 100, "\(result)")
            let counters = await relay.counters()
            #expect((result.videoNacksSent ?? 0) > 0 && counters[.testLoss] > 0)
            #expect((result.retransmittedPacketsReceived ?? 0) > 0, "Chromium counted RTX it received: \(result)")
            #expect(result.rtxSsrc == nil || result.rtxSsrc == relayRTX, "on the relay's RTX SSRC: \(result)")
            #expect(counters.retransmittedAsRTX > 0 && counters.retransmittedAsRTX == counters.retransmitted)
            #expect(counters.rtxForwarded > 0 && counters.rtxUnwrapped == 0)
            #expect(counters[.rtxTooShort] == 0 && counters[.unknownPayloadType] == 0)
            print("chromium rtx (relay echo): frames \(result.videoFrames ?? -1), NACKs \(result.videoNacksSent ?? -1), retransmitted received \(result.retransmittedPacketsReceived ?? -1) / sent \(result.retransmittedPacketsSent ?? -1), rtxSsrc \(result.rtxSsrc.map(String.init) ?? "-") (relay \(relayRTX)); relay retransmitted \(counters.retransmitted) (as RTX \(counters.retransmittedAsRTX)), RTX forwarded \(counters.rtxForwarded), drops \(counters.droppedByName.filter { $0.value > 0 })")
        } catch {
            Issue.record("\(error)\npeer stderr:\n\(peer.stderr.suffix(4000))")
        }
        peer.kill()
        await relay.shutdown()
    }
}

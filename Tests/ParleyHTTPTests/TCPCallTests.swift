import Foundation
import HummingbirdTesting
import ParleyApp
import ParleyTestSupport
import Testing

/// ICE over TCP end to end: the real server with `media.udpCandidates` off, so its answers offer
/// only the relay's passive TCP candidate (RFC 6544), and headless Chromium (Debian's, fake camera
/// and microphone, no TURN) placing the echo call — it can only connect over TCP.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                "needs Debian's chromium: scripts/test.sh installs it (apt-get install chromium)"))
struct TCPCallTests {
    @Test func chromiumGetsItsEchoCallOverTCPWhenTheAnswerOffersNoUDP() async throws {
        let python = try AiortcPeer.python()
        let parley = try await TestParley.start {
            $0.mediaUDPCandidates = false
            $0.adminToken = AdminTests.adminToken
        }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let peer = try AiortcPeer(python: python, script: AiortcPeer.script(named: "chromium_turn_peer.py"),
                                      arguments: ["--ice-servers", "[]", "--policy", "all", "--frames", "60"])
            defer { peer.kill() }
            let offer = try await peer.next(timeout: .seconds(30))
            #expect(offer.type == "offer", "\(offer.error ?? "") \(peer.stderr.suffix(2000))")
            let started = ContinuousClock.now
            let echo = try await client.call(.post, "/v1/calls/echo", json: ["sdp": try #require(offer.sdp)], token: ann.accessToken)
            #expect(echo.status == .created, "\(echo.text)")
            let answer = try #require(echo["sdp"] as? String)
            let candidates = answer.split(separator: "\r\n").filter { $0.hasPrefix("a=candidate:") }
            #expect(!candidates.isEmpty && candidates.allSatisfy { $0.contains(" tcp ") && $0.hasSuffix("tcptype passive") },
                    "only passive TCP candidates: \(candidates)")
            try peer.send(answer: answer)

            let result = try await peer.next(timeout: .seconds(40))
            #expect(result.type == "result", "\(result.error ?? "") \(peer.stderr.suffix(2000))")
            #expect((result.videoFrames ?? 0) >= 60, "\(result)")
            #expect((result.audioPackets ?? 0) > 50 && (result.audioEnergy ?? 0) > 0, "Chromium hears its fake microphone: \(result)")
            #expect(result.protocol == "tcp" && result.remoteProtocol == "tcp", "the selected pair is TCP: \(result)")

            let status = try await client.call(.get, "/admin/status", token: AdminTests.adminToken)
            let tcp = try #require((status["relay"] as? [String: any Sendable])?["tcp"] as? [String: any Sendable], "\(status.text)")
            #expect(((tcp["packetsIn"] as? NSNumber)?.intValue ?? 0) > 100, "\(tcp)")
            #expect(((tcp["packetsOut"] as? NSNumber)?.intValue ?? 0) > 100, "\(tcp)")
            print("chromium echo call over TCP only: videoFrames=\(result.videoFrames ?? -1) audioPackets=\(result.audioPackets ?? -1) audioEnergy=\(result.audioEnergy ?? -1) connect=\(result.connectSeconds ?? -1) s, pair \(result.protocol ?? "?")/\(result.remoteProtocol ?? "?"), relay tcp \(tcp), total \(ContinuousClock.now - started)")
            if let id = echo["callId"] as? String {
                #expect(try await client.call(.delete, "/v1/calls/echo/\(id)", token: ann.accessToken).status == .noContent)
            }
        }
    }
}

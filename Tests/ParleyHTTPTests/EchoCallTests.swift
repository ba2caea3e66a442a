import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyMediaClient
import ParleyTestSupport
import Testing

/// The echo test call through the real server: a real aiortc client posts its offer to
/// POST /v1/calls/echo and decodes its own audio and video coming back from the relay.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)))
struct EchoCallTests {
    @Test func anAiortcClientHearsAndSeesItself() async throws {
        let python = try AiortcPeer.python()
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let peer = try AiortcPeer(python: python, arguments: [])
            defer { peer.kill() }
            let offer = try #require(try await peer.next(timeout: .seconds(30)).sdp)
            let reply = try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: ann.accessToken)
            #expect(reply.status == .created, "\(reply.text)")
            let callID = try #require(reply["callId"] as? String)
            let answer = try #require(reply["sdp"] as? String)
            #expect(answer.contains("a=ice-lite"))
            try peer.send(answer: answer)
            let result = try await peer.next(timeout: .seconds(60))
            #expect(result.type == "result", "\(result.error ?? "") \(peer.stderr.suffix(2000))")
            #expect((result.audioFrames ?? 0) >= 200, "\(result)")
            #expect((result.videoFrames ?? 0) >= 100, "\(result)")
            print("echo call over HTTP: audioFrames=\(result.audioFrames ?? -1) videoFrames=\(result.videoFrames ?? -1) profile=\(result.srtpProfile ?? "?")")

            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            #expect(try await client.call(.delete, "/v1/calls/echo/\(callID)", token: bo.accessToken).errorCode == "call_not_found")
            #expect(try await client.call(.delete, "/v1/calls/echo/\(callID)", token: ann.accessToken).status == .noContent)
            #expect(try await client.call(.delete, "/v1/calls/echo/\(callID)", token: ann.accessToken).status == .notFound)
            #expect(await parley.parts.relay.counters().legs == 0)
        }
    }

    /// A phone on an IPv6-only network: the relay listens dual-stack, the answer carries a host
    /// candidate for each announced address, and an aiortc that has only ::1 (and refuses to send
    /// anywhere else) hears and sees itself.
    @Test func anEchoCallRunsOverIPv6() async throws {
        let python = try AiortcPeer.python()
        let parley = try await TestParley.start {
            $0.mediaHost = "::"
            $0.mediaAnnouncedAddress = "127.0.0.1"
            $0.mediaAnnouncedAddresses = ["::1"]
        }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let peer = try AiortcPeer(python: python, arguments: ["--address", "::1"])
            defer { peer.kill() }
            let offer = try #require(try await peer.next(timeout: .seconds(30)).sdp)
            #expect(offer.contains(" ::1 "), "aiortc gathered ::1: \(offer)")
            let reply = try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: ann.accessToken)
            #expect(reply.status == .created, "\(reply.text)")
            let answer = try #require(reply["sdp"] as? String)
            let port = parley.parts.relay.port
            let candidates = answer.split(separator: "\r\n").filter { $0.hasPrefix("a=candidate:") }
            #expect(candidates.contains { $0.contains(" udp 2130706431 127.0.0.1 \(port) typ host") }, "\(answer)")
            #expect(candidates.contains { $0.contains(" udp 2130706175 ::1 \(port) typ host") }, "\(answer)")
            try peer.send(answer: answer)
            let result = try await peer.next(timeout: .seconds(60))
            #expect(result.type == "result", "\(result.error ?? "") \(peer.stderr.suffix(2000))")
            #expect((result.audioFrames ?? 0) >= 200, "\(result)")
            #expect((result.videoFrames ?? 0) >= 100, "\(result)")
            print("echo call over IPv6: audioFrames=\(result.audioFrames ?? -1) videoFrames=\(result.videoFrames ?? -1)")
        }
    }

    /// One echo leg per user (a new echo call ends the earlier one), and a node full of legs
    /// refuses more with `503 relay_full` and Retry-After.
    @Test func echoCallsAreOneAtATimePerUserAndTheNodeHasALegLimit() async throws {
        let parley = try await TestParley.start { $0.mediaMaxLegs = 2 }
        try await parley.test { client in
            let offer = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("ParleySDPTests/Fixtures/aiortc-1.16-offer.sdp").path, encoding: .utf8)
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            var annCalls: [String] = []
            for _ in 1...3 {
                let started = try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: ann.accessToken)
                #expect(started.status == .created, "\(started.text)")
                annCalls.append(started["callId"] as? String ?? "")
            }
            #expect(await parley.parts.relay.counters().legs == 1, "Ann's three echo calls hold one leg")
            #expect(try await client.call(.delete, "/v1/calls/echo/\(annCalls[0])", token: ann.accessToken).errorCode == "call_not_found")
            #expect(try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: bo.accessToken).status == .created)
            let full = try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: cy.accessToken)
            #expect(full.status == .serviceUnavailable)
            #expect(full.errorCode == "relay_full", "\(full.text)")
            #expect(full.headers[.retryAfter] != nil)
            #expect(await parley.parts.relay.counters().legs == 2)
            #expect(try await client.call(.delete, "/v1/calls/echo/\(annCalls[2])", token: ann.accessToken).status == .noContent)
            #expect(try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: cy.accessToken).status == .created)
        }
    }

    @Test func echoCallsEndByThemselvesAndBadOffersAreRefused() async throws {
        let parley = try await TestParley.start { $0.echoCallSeconds = 1 }
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bad = try await client.call(.post, "/v1/calls/echo", json: ["sdp": "v=0 nonsense"], token: ann.accessToken)
            #expect(bad.status.code >= 400 && bad.status.code < 500)
            #expect(bad.errorCode == "invalid_offer", "\(bad.text)")
            #expect(try await client.call(.post, "/v1/calls/echo", json: ["sdp": 5], token: ann.accessToken).errorCode == "invalid_field")
            #expect(try await client.call(.post, "/v1/calls/echo", json: ["sdp": "x"]).status == .unauthorized)

            let offer = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("ParleySDPTests/Fixtures/aiortc-1.16-offer.sdp").path, encoding: .utf8)
            let started = try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: ann.accessToken)
            #expect(started.status == .created, "\(started.text)")
            #expect(await parley.parts.relay.counters().legs == 1)
            try await Task.sleep(for: .milliseconds(1500))
            #expect(await parley.parts.relay.counters().legs == 0, "the echo call ended by itself")
        }
    }
}

/// The same echo call from Parley's own media client (real Opus and VP8) through the server.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct MediaClientEchoTests {
    @Test func theSwiftMediaClientHearsAndSeesItself() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let media = try await MediaClient(configuration: MediaClientConfiguration())
            let reply = try await client.call(.post, "/v1/calls/echo", json: ["sdp": media.offer], token: ann.accessToken)
            #expect(reply.status == .created, "\(reply.text)")
            _ = try await media.connect(answer: try #require(reply["sdp"] as? String))
            let report = try await media.runCall(for: .seconds(5))
            #expect(report.received.audioFramesDecoded >= 200, "\(report.received)")
            #expect(report.received.videoFramesDecoded >= 100, "\(report.received)")
            #expect(report.received.toneFrequency.map { abs($0 - 440) <= 10 } == true)
            #expect(report.received.frameNumberRegressions == 0)
            print("swift media client echo over HTTP: audio \(report.received.audioFramesDecoded), video \(report.received.videoFramesDecoded), tone \(report.received.toneFrequency ?? -1) Hz")
            media.close()
            let callID = try #require(reply["callId"] as? String)
            #expect(try await client.call(.delete, "/v1/calls/echo/\(callID)", token: ann.accessToken).status == .noContent)
        }
    }
}

import Foundation
import NIOCore
import ParleyTestSupport
import Testing
@testable import ParleyRelay

/// Interop: a real aiortc 1.16 client places an echo call through the relay and decodes its own
/// Opus and VP8 coming back. Serialized: each run encodes and decodes video on a 2-core machine.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)))
struct AiortcEchoTests {
    /// What `received` decoded, held to what `sender`'s tracks handed their encoders over its
    /// window (the peer's own in an echo call, the other side's in a pair): at least 80 % of the
    /// audio and 65 % of the video — over 5 s, 200 of 250 Opus frames and 100 of 150 VP8 frames,
    /// the fixed counts these tests asked for before — and never less than a second of audio
    /// and half a second of video. Held to what was sent, a test measures what the relay carried;
    /// a fixed count also measured how much CPU aiortc had left to encode (a loaded CI machine
    /// once had it send 70 video frames in 8 s).
    static func expectCarried(_ received: AiortcPeer.Message, sentBy sender: AiortcPeer.Message, audio: Bool = true,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let audioSent = sender.audioFramesSent ?? 0, videoSent = sender.videoFramesSent ?? 0
        let audioWanted = max(50, audioSent * 4 / 5), videoWanted = max(15, videoSent * 65 / 100)
        if audio {
            #expect((received.audioFrames ?? 0) >= audioWanted,
                    "audio: \(received.audioFrames ?? -1) decoded of \(audioSent) sent", sourceLocation: sourceLocation)
        }
        #expect((received.videoFrames ?? 0) >= videoWanted,
                "video: \(received.videoFrames ?? -1) decoded of \(videoSent) sent", sourceLocation: sourceLocation)
    }

    @Test("aiortc echo call decodes its own audio and video",
          arguments: [("gcm128,cm80", "SRTP_AEAD_AES_128_GCM"), ("cm80", "SRTP_AES128_CM_SHA1_80")])
    func echoCall(offered: String, expectedProfile: String) async throws {
        let python = try AiortcPeer.python()
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let peer = try AiortcPeer(python: python, arguments: ["--srtp", offered])
        do {
            let result = try await EchoCall.run(relay: relay, peer: peer)
            #expect(result.message.srtpProfile == expectedProfile)
            #expect(result.message.remoteIceLite == true)
            #expect(result.message.remoteSetup == "passive")
            Self.expectCarried(result.message, sentBy: result.message)
            // The peer may already have said goodbye (close_notify) by the time the stats are read.
            #expect(result.stats.state == .connected || result.stats.state == .closed, "\(result.stats.state)")
            #expect(result.stats.packetsIn > 300 && result.stats.packetsOut > 300, "\(result.stats)")
            #expect(result.stats.audio != nil && result.stats.video != nil)
            #expect(result.connectedEvent, "no connected event")
            print("aiortc echo \(expectedProfile): audioFrames=\(result.message.audioFrames ?? -1) videoFrames=\(result.message.videoFrames ?? -1) (sent \(result.message.audioFramesSent ?? -1)/\(result.message.videoFramesSent ?? -1)) stats=\(result.stats)")
        } catch {
            Issue.record("\(error)\npeer stderr:\n\(peer.stderr)")
        }
        peer.kill()
        await relay.shutdown()
    }

    @Test("aiortc whose offer says a=setup:passive: the relay answers active, is the DTLS client, and the echo decodes")
    func relayAsDTLSClient() async throws {
        let python = try AiortcPeer.python()
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let peer = try AiortcPeer(python: python, arguments: [])
        do {
            // aiortc offers actpass; as a passive offerer it becomes the DTLS server once the
            // answer says active (its setRemoteDescription reads the answer's role).
            let result = try await EchoCall.run(relay: relay, peer: peer, rewrite: {
                $0.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive")
            })
            #expect(result.message.remoteSetup == "active")
            #expect(result.message.srtpProfile == "SRTP_AEAD_AES_128_GCM")
            Self.expectCarried(result.message, sentBy: result.message)
            #expect(result.connectedEvent, "no connected event")
            print("aiortc echo, relay as DTLS client: audioFrames=\(result.message.audioFrames ?? -1) videoFrames=\(result.message.videoFrames ?? -1)")
        } catch {
            Issue.record("\(error)\npeer stderr:\n\(peer.stderr)")
        }
        peer.kill()
        await relay.shutdown()
    }
}

/// The steps of one echo call, shared by the interop and garbage tests.
enum EchoCall {
    struct Result {
        var message: AiortcPeer.Message
        var stats: LegStats
        var leg: LegID
        var connectedEvent: Bool
    }

    /// What a side task may want to know about the running call.
    struct Info: Sendable {
        var offer: String
        var answer: String
        var leg: LegID
    }

    /// offer → createLeg → echo → answer → result; `during` runs once the call is connected.
    /// `rewrite` changes the offer on its way to the relay (the peer keeps its own).
    static func run(relay: MediaRelay, peer: AiortcPeer,
                    during: @Sendable @escaping (Info) async throws -> Void = { _ in },
                    rewrite: (String) -> String = { $0 }) async throws -> Result {
        let offer = try await peer.next(timeout: .seconds(30))
        let offerSDP = rewrite(try #require(offer.sdp, "first message is not an offer: \(offer)"))
        let (leg, answer) = try await relay.createLeg(offer: offerSDP, owner: "echo-test")
        try await relay.echo(leg)
        try peer.send(answer: answer)
        let connected = Task { () -> Bool in
            for await event in relay.events where event.leg == leg {
                if case .connected = event.kind { return true }
                return false
            }
            return false
        }
        let sideTask = Task {
            _ = await connected.value
            try await during(Info(offer: offerSDP, answer: answer, leg: leg))
        }
        let message = try await peer.next(timeout: .seconds(60))
        try #require(message.type == "result", "peer reported: \(message.error ?? message.type)")
        try await sideTask.value
        let stats = try #require(await relay.stats(for: leg))
        return Result(message: message, stats: stats, leg: leg, connectedEvent: await connected.value)
    }
}

import ParleyMediaClient
import ParleyRelay
import ParleySRTP
import ParleyTestSupport
import Testing

/// An echo call over the real UDP port with real codecs: the client sends Opus (a 440 Hz tone)
/// and VP8 (a moving pattern carrying frame numbers), the relay returns both, and the client
/// decodes its own media — the load-test client's basic contract.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct SwiftEchoCallTests {
    @Test("echo call: ≥ 200 Opus and ≥ 100 VP8 frames decoded in 5 s, 440 Hz heard, frame numbers increasing",
          arguments: [[SRTPProfile.aeadAES128GCM], [SRTPProfile.aes128CMHMACSHA1_80]])
    func echoCall(profiles: [SRTPProfile]) async throws {
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let client = try await MediaClient(configuration: MediaClientConfiguration(srtpProfiles: profiles))
        let (leg, answer) = try await relay.createLeg(offer: client.offer, owner: "echo-call")
        try await relay.echo(leg)
        #expect(try await client.connect(answer: answer) == profiles[0])

        let report = try await client.runCall(for: .seconds(5))
        let sent = report.sent, received = report.received
        #expect(sent.audioFramesSent >= 240 && sent.videoFramesSent >= 140, "\(sent)")
        #expect(sent.largestRTPPacket <= 1_200)
        #expect(received.audioFramesDecoded >= 200, "\(received)")
        #expect(received.videoFramesDecoded >= 100, "\(received)")
        let tone = try #require(received.toneFrequency)
        #expect(abs(tone - 440) <= 10, "heard \(tone) Hz")
        #expect(received.toneWindows >= 3 && received.toneWindowsOff == 0)
        #expect(received.lastFrameNumber.map { Int($0) >= 100 } == true)
        #expect(received.frameNumberRegressions == 0 && received.unreadableFrameNumbers == 0)
        #expect(received.srtpFailures == 0 && received.opusDecodeFailures == 0 && received.vp8DecodeFailures == 0)
        // The first frames come back within a second of the first sent (the encoders already
        // open): nothing on the way holds media back until some later event.
        #expect(received.firstAudioFrameAfter.map { $0 < .seconds(1) } == true, "first audio after \(String(describing: received.firstAudioFrameAfter))")
        #expect(received.firstVideoFrameAfter.map { $0 < .seconds(1) } == true, "first video after \(String(describing: received.firstVideoFrameAfter))")
        #expect(await relay.counters()[.srtpAuthFail] == 0)
        client.close()
        await relay.shutdown()
    }
}

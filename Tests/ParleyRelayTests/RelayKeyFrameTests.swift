@testable import ParleyMediaClient
import ParleyTestSupport
import ParleyRTP
import Testing
@testable import ParleyRelay

/// A receiver that starts listening needs a key frame, and a sender may ignore the first request
/// (Chromium takes one per 300 ms) or send the frame before the receiver is connected: the relay
/// asks again every 500 ms until a key frame has gone to the receiver, and then stops.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct RelayKeyFrameTests {
    func videoPacket(_ client: MediaClient, _ sequence: UInt16, keyFrame: Bool) -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: client.local.videoPayloadType, sequenceNumber: sequence,
                                       timestamp: UInt32(sequence) * 3_000, ssrc: client.local.videoSSRC)
        builder.marker = true
        builder.extensions = [(id: 1, value: Array(client.local.mids.video.utf8))]
        // VP8 payload descriptor with a PictureID (X=1, S=1, PID=0), then the frame's first byte:
        // P=0 for a key frame, 1 for an inter frame.
        builder.payload = [0x90, 0x80, UInt8(sequence & 0x7f), keyFrame ? 0x10 : 0x11] + Array(repeating: 0xab, count: 400)
        return builder.build()
    }

    /// The PLIs `client` received about its own video during `duration`.
    func keyFrameRequests(at client: MediaClient, for duration: Duration) async throws -> Int {
        try (await client.receive(for: duration)).filter(\.isRTCP)
            .flatMap { try RTCPPacket.parseCompound($0.bytes).get() }
            .filter { if case .pictureLossIndication(let pli) = $0 { pli.mediaSSRC == client.local.videoSSRC } else { false } }
            .count
    }

    @Test("the relay asks the sender again until a key frame reaches the new receiver")
    func keyFrameRequestsRepeatUntilOneIsForwarded() async throws {
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let alice = try await MediaClient()
        let bob = try await MediaClient()
        let (a, answerA) = try await relay.createLeg(offer: alice.offer, owner: "call")
        let (b, answerB) = try await relay.createLeg(offer: bob.offer, owner: "call")
        try await alice.connect(answer: answerA)
        try await bob.connect(answer: answerB)
        try await relay.pair(a, b)

        // Alice ignores the requests and sends inter frames only: the relay keeps asking.
        for sequence in 1...5 { alice.send(videoPacket(alice, UInt16(sequence), keyFrame: false)) }
        let unanswered = try await keyFrameRequests(at: alice, for: .milliseconds(1_800))
        #expect(unanswered >= 3 && unanswered <= 5, "\(unanswered) requests in 1.8 s (one at pairing, then every 500 ms)")
        let forwarded = await bob.receive(for: .milliseconds(100)).filter { !$0.isRTCP }
        #expect(forwarded.count == 5, "inter frames still go through")

        // A key frame reaches Bob: no more requests.
        alice.send(videoPacket(alice, 6, keyFrame: true))
        #expect(await bob.receive(for: .seconds(2), rtpCount: 1).filter { !$0.isRTCP }.count == 1)
        _ = await alice.receive(for: .milliseconds(100))   // a request already on its way
        #expect(try await keyFrameRequests(at: alice, for: .milliseconds(1_500)) == 0)
        #expect(await relay.counters().keyFrameRequests >= UInt64(unanswered))
        await relay.shutdown()
    }
}

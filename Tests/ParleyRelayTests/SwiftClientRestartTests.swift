import Foundation
import ParleyMediaClient
import ParleyRTP
import ParleySTUN
import ParleyTestSupport
import Testing
@testable import ParleyRelay

/// An ICE restart on a live pair, on the wire: the restarted leg keeps its DTLS association and
/// SRTP keys, its partner sees no change, and the old credentials stop working after the overlap.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct SwiftClientRestartTests {
    func audioPacket(_ client: MediaClient, _ sequence: UInt16) -> [UInt8] {
        var builder = RTPPacketBuilder(payloadType: client.local.audioPayloadType, sequenceNumber: sequence,
                                       timestamp: UInt32(sequence) * 960, ssrc: client.local.audioSSRC)
        builder.payload = (0..<60).map { UInt8(truncatingIfNeeded: Int(sequence) &+ $0) }
        return builder.build()
    }

    /// Sends `count` audio packets from `sender` and returns how many RTP packets `receiver` got.
    func exchange(_ sender: MediaClient, _ receiver: MediaClient, from first: Int, count: Int = 50) async -> Int {
        for sequence in first..<(first + count) { sender.send(audioPacket(sender, UInt16(sequence))) }
        return await receiver.receive(for: .seconds(3), rtpCount: count).filter { !$0.isRTCP }.count
    }

    func check(username: String, password: String, useCandidate: Bool) -> [UInt8] {
        STUNMessageBuilder.bindingRequest(transactionID: .random(), username: username, priority: 2_130_706_431,
                                          role: .controlling(tieBreaker: 5), useCandidate: useCandidate,
                                          key: STUNIntegrityKey(password: password))
    }

    static func attribute(_ name: String, in sdp: String) -> String? {
        sdp.split(separator: "\r\n").first { $0.hasPrefix("a=\(name):") }.map { String($0.dropFirst(name.count + 3)) }
    }

    @Test("restart one leg of a live pair: media flows before, during and after; the partner sees no change")
    func restartLivePair() async throws {
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let alice = try await MediaClient()
        let bob = try await MediaClient()
        let (a, answerA) = try await relay.createLeg(offer: alice.offer, owner: "call")
        let (b, answerB) = try await relay.createLeg(offer: bob.offer, owner: "call")
        try await relay.pair(a, b)
        try await alice.connect(answer: answerA)
        try await bob.connect(answer: answerB)
        _ = await alice.receive(for: .milliseconds(200))   // the key frame requests of pairing
        _ = await bob.receive(for: .milliseconds(200))
        #expect(await exchange(alice, bob, from: 0) == 50)

        // A restart offer: the same certificate and media, new ICE credentials (RFC 8839 §4.4.1.1.1).
        let (newUfrag, newPassword) = ("R3st", "restartpasswordrestart12")
        let restartOffer = alice.offer
            .replacingOccurrences(of: "a=ice-ufrag:\(alice.local.ufrag)", with: "a=ice-ufrag:\(newUfrag)")
            .replacingOccurrences(of: "a=ice-pwd:\(alice.local.password)", with: "a=ice-pwd:\(newPassword)")
        let restartAnswer = try await relay.restartICE(a, offer: restartOffer)
        let oldUfrag = try #require(Self.attribute("ice-ufrag", in: answerA))
        let oldPassword = try #require(Self.attribute("ice-pwd", in: answerA))
        let relayUfrag = try #require(Self.attribute("ice-ufrag", in: restartAnswer))
        let relayPassword = try #require(Self.attribute("ice-pwd", in: restartAnswer))
        #expect(relayUfrag != oldUfrag && relayPassword != oldPassword)
        for name in ["fingerprint", "setup", "ssrc"] {
            #expect(Self.attribute(name, in: restartAnswer) == Self.attribute(name, in: answerA), "\(name) kept")
        }

        // Until the client checks with the new credentials, the old pair carries media both ways.
        #expect(await exchange(alice, bob, from: 50) == 50)
        #expect(await exchange(bob, alice, from: 0) == 50)
        alice.sendRaw(check(username: "\(relayUfrag):\(newUfrag)", password: relayPassword, useCandidate: true))
        #expect(await exchange(alice, bob, from: 100) == 50, "the same SRTP keys after the restart")
        #expect(await exchange(bob, alice, from: 50) == 50)

        // Old credentials: dropped once the overlap (2 s from the relay's first new check) has
        // passed — with a second to spare, and the count awaited: with the whole suite running the
        // relay was seen to count the check more than 0.2 s after it was sent.
        try await Task.sleep(for: .milliseconds(3_000))
        let staleBefore = await relay.counters()[.staleCredentials]
        alice.sendRaw(check(username: "\(oldUfrag):\(alice.local.ufrag)", password: oldPassword, useCandidate: false))
        var counters = await relay.counters()
        for _ in 0..<100 where counters[.staleCredentials] == staleBefore {
            try await Task.sleep(for: .milliseconds(20))
            counters = await relay.counters()
        }
        #expect(counters[.staleCredentials] == staleBefore + 1, "\(counters.droppedByName.filter { $0.value > 0 })")
        #expect(counters[.srtpAuthFail] == 0 && counters.iceRestarts == 1)
        #expect(await exchange(alice, bob, from: 150) == 50)

        let statsA = try #require(await relay.stats(for: a))
        let statsB = try #require(await relay.stats(for: b))
        #expect(statsA.state == .connected && statsA.iceRestarts == 1 && statsA.addressSwitches == 0)
        #expect(statsB.iceRestarts == 0 && statsB.packetsIn == 100 && statsA.packetsIn == 200)
        alice.close()
        bob.close()
        await relay.shutdown()
    }
}

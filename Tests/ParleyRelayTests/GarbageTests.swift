import Foundation
import NIOCore
import NIOPosix
import ParleySTUN
import ParleyTestSupport
import Testing
@testable import ParleyRelay

/// While an aiortc echo call runs, other sockets throw junk at the relay's port. The call must
/// not notice, and every kind of junk must be counted under its own drop reason. Part of the
/// serialized aiortc suite, so no two live calls share the CPU.
extension AiortcEchoTests {
    @Test("junk from other sockets is dropped and counted while an echo call keeps decoding")
    func garbageDuringEchoCall() async throws {
        let python = try AiortcPeer.python()
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        let peer = try AiortcPeer(python: python, arguments: ["--srtp", "gcm128,cm80"])
        let before = await relay.counters()
        do {
            let result = try await EchoCall.run(relay: relay, peer: peer) { info in
                try await Junk.throwAt(relay: relay, call: info, for: .seconds(4))
            }
            AiortcEchoTests.expectCarried(result.message, sentBy: result.message)
            let after = await relay.counters()
            for reason: DropReason in [.unknownKind, .notSTUN, .badIntegrity, .unknownUsername, .dtlsForUnknownLeg,
                                       .unknownSource, .srtpAuthFail] {
                #expect(after[reason] > before[reason], "\(reason) did not increase: \(after.droppedByName)")
            }
            #expect(after.decryptFailures > before.decryptFailures)
            #expect(result.stats.decryptFailures > 0, "auth failures from a validated junk address count on the leg")
            print("garbage: audioFrames=\(result.message.audioFrames ?? -1) videoFrames=\(result.message.videoFrames ?? -1) dropped=\(after.droppedByName.filter { $0.value > 0 })")
        } catch {
            Issue.record("\(error)\npeer stderr:\n\(peer.stderr)")
        }
        peer.kill()
        await relay.shutdown()
    }
}

/// The junk, sent from two sockets of our own: one that never passes ICE and one that passes a
/// connectivity check with the leg's real credentials (without nominating) and then sends SRTP
/// with a wrong tag.
enum Junk {
    static func throwAt(relay: MediaRelay, call: EchoCall.Info, for duration: Duration) async throws {
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: relay.port)
        let stranger = try await bind()
        let insider = try await bind()
        defer {
            stranger.close(promise: nil)
            insider.close(promise: nil)
        }
        let relayUfrag = try #require(attribute("ice-ufrag", in: call.answer))
        let relayPwd = try #require(attribute("ice-pwd", in: call.answer))
        let clientUfrag = try #require(attribute("ice-ufrag", in: call.offer))
        let key = STUNIntegrityKey(password: relayPwd)

        func check(username: String, key: STUNIntegrityKey) -> [UInt8] {
            STUNMessageBuilder.bindingRequest(
                transactionID: .random(), username: username, priority: 1, role: .controlling(tieBreaker: 42),
                useCandidate: false, key: key)
        }
        // The insider passes ICE for the leg, so its SRTP reaches the leg's inbound session.
        try await send(check(username: "\(relayUfrag):\(clientUfrag)", key: key), from: insider, to: target)
        try await Task.sleep(for: .milliseconds(200))

        var generator = SystemRandomNumberGenerator()
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            // Random bytes outside every RFC 7983 range.
            var random = (0..<100).map { _ in UInt8.random(in: 0...255, using: &generator) }
            random[0] = UInt8.random(in: 192...255, using: &generator)
            try await send(random, from: stranger, to: target)
            // A valid check cut short.
            try await send(Array(check(username: "\(relayUfrag):\(clientUfrag)", key: key).prefix(30)), from: stranger, to: target)
            // The right username, the wrong password.
            try await send(check(username: "\(relayUfrag):\(clientUfrag)", key: STUNIntegrityKey(password: "not-the-password-at-all")),
                           from: stranger, to: target)
            // A username no leg has.
            try await send(check(username: "nobody:\(clientUfrag)", key: key), from: stranger, to: target)
            // A DTLS handshake record (ClientHello header) from an address that passed no check.
            try await send([22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, 0, 12] + [UInt8](repeating: 1, count: 12),
                           from: stranger, to: target)
            // SRTP-looking packets: from the stranger (unknown source) and from the insider with
            // a valid header and a forged tag (authentication failure).
            let srtp = forgedSRTP(using: &generator)
            try await send(srtp, from: stranger, to: target)
            try await send(srtp, from: insider, to: target)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// V=2, PT 96 (Opus here), a random SSRC, a 160-byte payload and a 16-byte tag of garbage.
    static func forgedSRTP(using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        var packet: [UInt8] = [0x80, 96]
        let seq = UInt16.random(in: 0...UInt16.max, using: &generator)
        let ssrc = UInt32.random(in: 1...UInt32.max, using: &generator)
        packet += [UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0x10, 0]
        packet += [UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
        packet += (0..<176).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return packet
    }

    static func bind() async throws -> any Channel {
        try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
    }

    static func send(_ bytes: [UInt8], from channel: any Channel, to address: SocketAddress) async throws {
        let buffer = channel.allocator.buffer(bytes: bytes)
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer))
    }

    /// The first `a=name:value` in an SDP.
    static func attribute(_ name: String, in sdp: String) -> String? {
        for line in sdp.split(whereSeparator: \.isNewline) where line.hasPrefix("a=\(name):") {
            return String(line.dropFirst(name.count + 3))
        }
        return nil
    }
}

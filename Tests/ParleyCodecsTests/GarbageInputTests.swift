import Testing
@testable import ParleyCodecs

@Suite("Garbage in, error values out — never a crash")
struct GarbageInputTests {
    @Test func opusDecoderRejectsMalformedPackets() throws {
        let decoder = try OpusDecoder()
        #expect(throws: OpusCodecError.emptyPacket) { try decoder.decode([]) }
        // RFC 6716 §3.2.5: code 3 needs a frame-count octet.
        #expect(throws: OpusCodecError.self) { try decoder.decode([0x03]) }
        // Code 3 with M=0 frames.
        #expect(throws: OpusCodecError.self) { try decoder.decode([0xFB, 0x00]) }
        // Code 3, 63 × 20 ms frames = 1.26 s > 120 ms.
        #expect(throws: OpusCodecError.self) { try decoder.decode([0xFB, 0x3F] + Array(repeating: 0xAA, count: 64)) }
        // Code 1 (two equal frames) with an odd payload length, §3.2.3 R3.
        #expect(throws: OpusCodecError.self) { try decoder.decode([0x79, 0x01, 0x02, 0x03]) }
    }

    @Test func opusDecoderSurvivesRandomPackets() throws {
        let decoder = try OpusDecoder(channels: 2)
        var rng = SeededGenerator(seed: 0x0_0915)
        var pcm: [Int16] = [], errors = 0
        for _ in 0..<2_000 {
            let packet = rng.bytes(Int.random(in: 1...400, using: &rng))
            do {
                let samples = try decoder.decode(packet, into: &pcm)
                #expect(pcm.count == samples * 2)
            } catch { errors += 1 }
        }
        #expect(errors > 0)
    }

    @Test func vp8DecoderRejectsGarbage() throws {
        let decoder = try VP8Decoder()
        #expect(throws: VP8CodecError.emptyFrame) { try decoder.decode([]) }
        // An inter frame (P=1) before any key frame.
        #expect(throws: VP8CodecError.self) { try decoder.decode([0x01, 0x02, 0x03, 0x04]) }
        // Claims to be a key frame (P=0) without the 9d 01 2a start code.
        #expect(throws: VP8CodecError.self) { try decoder.decode([0x10, 0x02, 0x00, 0x11, 0x22, 0x33, 0, 1, 0, 1]) }
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            #expect(throws: VP8CodecError.self) { try decoder.decode(rng.bytes(Int.random(in: 1...2_000, using: &rng))) }
        }
    }

    @Test func vp8DecoderSurvivesTruncatedAndCorruptedFrames() throws {
        let pattern = try #require(MovingPattern(width: 320, height: 240))
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240, targetBitrateKbps: 500))
        let key = try #require(try encoder.encode(pattern.frame(number: 0)).first)
        let inter = try #require(try encoder.encode(pattern.frame(number: 1)).first)
        #expect(key.isKeyFrame && !inter.isKeyFrame)
        // A key frame cut to its first 20 octets.
        #expect(throws: VP8CodecError.self) { try VP8Decoder().decode(Array(key.data.prefix(20))) }

        var rng = SeededGenerator(seed: 42)
        var failures = 0
        for round in 0..<100 {
            let decoder = try VP8Decoder()
            _ = try decoder.decode(key.data)
            var damaged = round.isMultiple(of: 2) ? inter.data : key.data
            for _ in 0..<8 { damaged[Int.random(in: 10..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            do { _ = try decoder.decode(damaged) } catch { failures += 1 }
            // Whatever happened, the decoder still takes the next key frame.
            #expect(MovingPattern.readFrameNumber(from: try decoder.decode(key.data)) == 0)
        }
        _ = failures  // corrupted entropy-coded data may or may not be detected; surviving is the point
    }

    @Test func depacketizerSurvivesRandomPayloads() {
        var depacketizer = VP8Depacketizer(maxFrameSize: 10_000)
        var rng = SeededGenerator(seed: 99)
        var malformed = 0
        for _ in 0..<5_000 {
            let payload = rng.bytes(Int.random(in: 0...50, using: &rng))
            let outcome = depacketizer.push(payload, sequenceNumber: UInt16.random(in: 0...UInt16.max, using: &rng),
                                            marker: Bool.random(using: &rng))
            if case .dropped(.malformed) = outcome { malformed += 1 }
        }
        #expect(depacketizer.push([], sequenceNumber: 1, marker: true) == .dropped(.malformed(.empty))
                || depacketizer.statistics.payloadsDropped > 0)
        #expect(malformed > 0)
    }
}

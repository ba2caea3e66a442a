import Testing
@testable import ParleyCodecs

@Suite("Opus round trip (RFC 6716, 48 kHz, 20 ms)")
struct OpusRoundTripTests {
    /// Encodes `frames` × 20 ms of a tone and decodes them, returning the PCM after the first
    /// `skip` frames (decoder warm-up) and the packet sizes.
    func roundTrip(frequency: Double, channels: Int = 1, frames: Int = 50, skip: Int = 5) throws -> ([Int16], [Int]) {
        let encoder = try OpusEncoder(channels: channels, bitrate: 32_000)
        let decoder = try OpusDecoder(channels: channels)
        var tone = TonePCM(frequency: frequency, channels: channels)
        var pcm: [Int16] = [], packet: [UInt8] = [], decoded: [Int16] = []
        var out: [Int16] = [], sizes: [Int] = []
        for index in 0..<frames {
            tone.nextFrame(into: &pcm)
            try encoder.encode(pcm, into: &packet)
            sizes.append(packet.count)
            let samples = try decoder.decode(packet, into: &decoded)
            #expect(samples == 960)
            #expect(decoded.count == 960 * channels)
            if index >= skip { out.append(contentsOf: decoded) }
        }
        return (out, sizes)
    }

    @Test func toneOf440HzComesBackAs440Hz() throws {
        let (pcm, sizes) = try roundTrip(frequency: 440)
        let frequency = try #require(ToneDetector.dominantFrequency(pcm))
        #expect(abs(frequency - 440) <= 10, "recovered \(frequency) Hz")
        // 32 kbit/s × 20 ms = 80 bytes a packet, give or take the rate control.
        #expect(sizes.allSatisfy { $0 > 2 && $0 < 200 }, "\(sizes)")
    }

    @Test func toneOf1000HzIsDistinctFrom440Hz() throws {
        let (high, _) = try roundTrip(frequency: 1_000)
        let (low, _) = try roundTrip(frequency: 440)
        let frequency = try #require(ToneDetector.dominantFrequency(high))
        #expect(abs(frequency - 1_000) <= 10, "recovered \(frequency) Hz")
        #expect(ToneDetector.power(at: 1_000, in: high) > 100 * ToneDetector.power(at: 440, in: high))
        #expect(ToneDetector.power(at: 440, in: low) > 100 * ToneDetector.power(at: 1_000, in: low))
    }

    @Test func stereoRoundTripKeepsTheToneOnBothChannels() throws {
        let (pcm, _) = try roundTrip(frequency: 440, channels: 2)
        for channel in 0..<2 {
            let frequency = try #require(ToneDetector.dominantFrequency(pcm, channels: 2, channel: channel))
            #expect(abs(frequency - 440) <= 10)
        }
    }

    @Test func bitrateIsSetThroughTheShim() throws {
        let encoder = try OpusEncoder(channels: 1, bitrate: 24_000)
        #expect(encoder.bitrate == 24_000)
        try encoder.setBitrate(64_000)
        #expect(encoder.bitrate == 64_000)
        #expect(throws: OpusCodecError.self) { try encoder.setBitrate(10) }
    }

    @Test func lossConcealmentProducesAFrame() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        var tone = TonePCM(frequency: 440)
        _ = try decoder.decode(try encoder.encode(tone.nextFrame()))
        var pcm: [Int16] = []
        #expect(try decoder.decodeLoss(into: &pcm) == 960)
        #expect(pcm.count == 960)
    }

    @Test func rejectsWrongShapes() {
        #expect(throws: OpusCodecError.self) { try OpusEncoder(channels: 3) }
        #expect(throws: OpusCodecError.self) { try OpusDecoder(channels: 0) }
        #expect(throws: OpusCodecError.self) { try OpusEncoder().encode([Int16](repeating: 0, count: 100)) }
    }
}

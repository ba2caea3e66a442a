import Testing
@testable import ParleyCodecs

@Suite("VP8 encode → RFC 7741 packetize → depacketize → decode")
struct VP8RoundTripTests {
    @Test func sixtyFramesSurviveTheWholePathWithTheirNumbers() throws {
        let pattern = try #require(MovingPattern(width: 320, height: 240))
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240, targetBitrateKbps: 500, framesPerSecond: 30))
        let decoder = try VP8Decoder()
        // 1200-byte packets minus the 12-byte RTP header.
        var packetizer = try VP8Packetizer(maxPayloadSize: 1_200 - 12, pictureID: 0x7ff0)
        var depacketizer = VP8Depacketizer()

        var image = I420Frame(width: 320, height: 240), decoded = I420Frame(width: 1, height: 1)
        var encoded: [VP8EncodedFrame] = [], payloads: [VP8RTPPayload] = []
        var sequence: UInt16 = 65_500  // crosses the 16-bit wrap on the way
        var readBack: [UInt16] = [], keyFrames: [Int] = [], totalBytes = 0, packets = 0

        for number in 0..<60 {
            if number == 30 { encoder.forceKeyFrame() }
            pattern.render(frameNumber: number, into: &image)
            #expect(try encoder.encode(image, into: &encoded) == 1)
            let frame = encoded[0]
            if frame.isKeyFrame { keyFrames.append(number) }
            #expect(frame.isKeyFrame == VP8EncodedFrame.isKeyFrame(frame.data))
            totalBytes += frame.data.count

            packetizer.packetize(frame.data, into: &payloads)
            for (index, payload) in payloads.enumerated() {
                packets += 1
                #expect(payload.bytes.count <= 1_188)
                #expect(payload.marker == (index == payloads.count - 1))
                let outcome = depacketizer.push(payload.bytes, sequenceNumber: sequence, marker: payload.marker)
                sequence &+= 1
                guard case .frame(let whole) = outcome else {
                    #expect(outcome == .incomplete)
                    continue
                }
                #expect(whole.data == frame.data)
                #expect(whole.isKeyFrame == frame.isKeyFrame)
                #expect(whole.pictureID == UInt16((0x7ff0 + number) & 0x7fff))
                try decoder.decode(whole.data, into: &decoded)
                #expect(decoded.width == 320 && decoded.height == 240)
                readBack.append(try #require(MovingPattern.readFrameNumber(from: decoded)))
            }
        }
        #expect(readBack == (0..<60).map { UInt16($0) })
        #expect(keyFrames.first == 0)
        #expect(keyFrames.contains(30))
        #expect(packets > 90, "at ~2 kB a frame most frames need two packets or more (\(packets))")
        #expect(depacketizer.statistics == .init(framesDelivered: 60, framesDiscarded: 0, packetsLost: 0, payloadsDropped: 0))
        // CBR at 500 kbit/s for 2 s is ~125 kB; allow generous slack for the key frames.
        #expect(totalBytes > 60_000 && totalBytes < 250_000, "\(totalBytes) bytes")
    }

    @Test func keyFrameIntervalIsHonoured() throws {
        let pattern = try #require(MovingPattern(width: 256, height: 64))
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 256, height: 64, targetBitrateKbps: 300, keyFrameInterval: 10))
        var keys: [Int] = []
        for number in 0..<25 where try encoder.encode(pattern.frame(number: number)).first?.isKeyFrame == true {
            keys.append(number)
        }
        #expect(keys.first == 0)
        #expect(keys.count >= 3, "\(keys)")
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 10 })
    }

    @Test func decoderReportsPictureSizeAndChecksumIsStable() throws {
        let pattern = try #require(MovingPattern(width: 320, height: 240))
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240))
        let frame = try #require(try encoder.encode(pattern.frame(number: 7)).first)
        let a = try VP8Decoder().decode(frame.data), b = try VP8Decoder().decode(frame.data)
        #expect(a.width == 320 && a.height == 240 && a.isWellFormed)
        #expect(a.y.count == 320 * 240 && a.u.count == 160 * 120)
        #expect(a.checksum == b.checksum)
    }

    @Test func encoderRejectsBadConfigurationsAndFrames() throws {
        #expect(throws: VP8CodecError.self) { try VP8Encoder(VP8EncoderConfiguration(width: 0, height: 240)) }
        #expect(throws: VP8CodecError.self) { try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240, targetBitrateKbps: 0)) }
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240))
        #expect(throws: VP8CodecError.frameMismatch(expectedWidth: 320, expectedHeight: 240, width: 160, height: 120)) {
            try encoder.encode(I420Frame(width: 160, height: 120))
        }
    }
}

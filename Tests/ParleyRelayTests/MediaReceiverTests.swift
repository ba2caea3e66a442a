import ParleyCodecs
import ParleyRTP
import ParleySRTP
import Testing
@testable import ParleyMediaClient

/// The receiving half of the media client on its own: real VP8 in SRTP, with a frame lost on
/// purpose, must end in exactly one PLI (RFC 4585 §6.3.1), no decoding of delta frames until a
/// key frame, and frame numbers read back from the pictures.
@Suite struct MediaReceiverTests {
    let key = SRTPMasterKey(key: [UInt8](repeating: 7, count: 16), salt: [UInt8](repeating: 9, count: 12))
    let ssrc: UInt32 = 0x1234_5678

    final class PLILog { var ssrcs: [UInt32] = [] }

    @Test("a lost VP8 frame: one PLI, delta frames skipped, decoding resumes on the next key frame")
    func lossAsksForAKeyFrame() throws {
        let transport = try SRTPTransport(profile: .aeadAES128GCM, inboundKey: key, outboundKey: key)
        var protector = try SRTPSession(profile: .aeadAES128GCM, key: key, direction: .outbound)
        let log = PLILog()
        let now = ContinuousClock.now
        let receiver = try MediaReceiver(audioPayloadType: 111, videoPayloadType: 96, expectedTone: 440, start: now) {
            log.ssrcs.append($0)
        }
        let pattern = try #require(MovingPattern(width: 320, height: 240))
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240, targetBitrateKbps: 300))
        var packetizer = try VP8Packetizer(maxPayloadSize: 1_100)
        var sequence: UInt16 = 65_530  // crosses the wrap

        func packets(frame number: Int) throws -> [[UInt8]] {
            let encoded = try #require(try encoder.encode(pattern.frame(number: number)).first)
            return packetizer.packetize(encoded.data).map { payload in
                var builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: sequence,
                                               timestamp: UInt32(number * 3_000), ssrc: ssrc)
                builder.marker = payload.marker
                builder.payload = payload.bytes
                sequence &+= 1
                var bytes = builder.build() + [UInt8](repeating: 0, count: 16)
                var length = bytes.count - 16
                _ = bytes.withUnsafeMutableBytes { protector.protectRTP($0, length: &length) }
                return Array(bytes.prefix(length))
            }
        }
        func deliver(_ datagrams: [[UInt8]]) {
            for var datagram in datagrams { _ = receiver.receive(&datagram, transport: transport, now: now) }
        }

        for number in 0..<3 { deliver(try packets(frame: number)) }
        #expect(receiver.statistics.videoFramesDecoded == 3 && log.ssrcs.isEmpty)

        _ = try packets(frame: 3)            // lost on the way
        deliver(try packets(frame: 4))       // a delta frame that refers to what was lost
        #expect(log.ssrcs == [ssrc], "one PLI for the sender's SSRC")
        #expect(receiver.statistics.videoPacketsLost >= 1)
        #expect(receiver.statistics.framesAwaitingKeyFrame >= 1)
        #expect(receiver.statistics.videoFramesDecoded == 3)

        encoder.forceKeyFrame()              // what the sender does on that PLI
        deliver(try packets(frame: 5))
        var tampered = try packets(frame: 6)
        tampered[0][20] ^= 0x01
        deliver(tampered)
        let stats = receiver.statistics
        #expect(stats.videoFramesDecoded == 4 && stats.keyFramesDecoded == 2)
        #expect(stats.lastFrameNumber == 5 && stats.frameNumberRegressions == 0 && stats.unreadableFrameNumbers == 0)
        #expect(stats.srtpFailures == 1)
    }

    @Test("shared media without decoding: frames checked byte for byte, frame order modulo the loop, latency from abs-send-time")
    func sharedMediaWithoutDecoding() throws {
        let media = try PreEncodedMedia(configuration: MediaClientConfiguration(), seconds: 1)
        #expect(media.videoFrameCount == 30 && media.audioFrameCount == 50)
        let transport = try SRTPTransport(profile: .aeadAES128GCM, inboundKey: key, outboundKey: key)
        var protector = try SRTPSession(profile: .aeadAES128GCM, key: key, direction: .outbound)
        let now = ContinuousClock.now
        let receiver = try MediaReceiver(audioPayloadType: 111, videoPayloadType: 96, expectedTone: 440, start: now,
                                         library: media, decodes: false, absSendTimeExtensionID: 3) { _ in }
        var packetizer = try VP8Packetizer(maxPayloadSize: 1_100)
        var sequence: UInt16 = 100, audioSequence: UInt16 = 7
        let sentAt = AbsSendTime.value(at: now - .milliseconds(5))

        func deliver(payloadType: UInt8, sequence: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8]) {
            var builder = RTPPacketBuilder(payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp,
                                           ssrc: payloadType == 111 ? ssrc &+ 1 : ssrc)
            builder.marker = marker
            builder.extensions = [(id: 3, value: [UInt8(sentAt >> 16), UInt8(sentAt >> 8 & 0xFF), UInt8(sentAt & 0xFF)])]
            builder.payload = payload
            var bytes = builder.build() + [UInt8](repeating: 0, count: 16)
            var length = bytes.count - 16
            _ = bytes.withUnsafeMutableBytes { protector.protectRTP($0, length: &length) }
            var datagram = Array(bytes.prefix(length))
            _ = receiver.receive(&datagram, transport: transport, now: now)
        }
        func video(_ index: Int, tamper: Bool = false) {
            var frame = media.videoFrames[index].data
            if tamper { frame[frame.count / 2] ^= 0x10 }
            for payload in packetizer.packetize(frame) {
                deliver(payloadType: 96, sequence: sequence, timestamp: UInt32(index * 3_000), marker: payload.marker,
                        payload: payload.bytes)
                sequence &+= 1
            }
        }
        func audio(_ index: Int, tamper: Bool = false) {
            var packet = media.audioPackets[index]
            if tamper { packet[packet.count - 1] ^= 0x01 }
            deliver(payloadType: 111, sequence: audioSequence, timestamp: UInt32(index * 960), marker: false, payload: packet)
            audioSequence &+= 1
        }

        for index in Array(0..<30) + [0, 1] { video(index) }   // once round the loop and on
        var stats = receiver.statistics
        #expect(stats.videoFramesVerified == 32 && stats.frameNumberRegressions == 0 && stats.lastFrameNumber == 1)
        #expect(stats.firstFrameAt == now && stats.videoFramesDecoded == 0)
        video(1)                                               // the same frame again
        video(10)                                              // a jump forward, as to a key frame
        video(26)                                              // 14 frames back, not 16 forward
        video(27, tamper: true)
        stats = receiver.statistics
        #expect(stats.frameNumberRegressions == 2 && stats.videoFramesMismatched == 1 && stats.videoFramesVerified == 35)

        for index in 0..<3 { audio(index) }
        audio(3, tamper: true)
        stats = receiver.statistics
        #expect(stats.audioFramesVerified == 3 && stats.audioFramesMismatched == 1 && stats.audioFramesDecoded == 0)
        #expect(stats.decodeFailures == 4 && stats.srtpFailures == 0)
        #expect(stats.latency.count == stats.audioPackets + stats.videoPackets)
        let p50 = try #require(stats.latency.percentile(50))
        #expect(abs(p50 - 0.005) < 0.000_2, "\(p50)")
    }
}

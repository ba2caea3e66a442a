import ParleyRTP
import Testing
@testable import ParleyMediaClient

/// abs-send-time (http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time): 24-bit 6.18
/// fixed-point seconds in the RTP writer's one-byte extension block, after the mid (RFC 8285).
@Suite struct AbsSendTimeTests {
    @Test("6.18 fixed point: 1.5 s is 0x060000; the value wraps at 64 s")
    func fixedPoint() {
        let epoch = AbsSendTime.epoch
        #expect(AbsSendTime.value(at: epoch + .milliseconds(1_500)) == 0x06_0000)
        #expect(AbsSendTime.value(at: epoch + .seconds(64) + .milliseconds(1_500)) == 0x06_0000)
        #expect(AbsSendTime.value(at: epoch + .microseconds(4)) == 1, "3.8 µs a unit, rounded")
        let sent = AbsSendTime.value(at: epoch + .seconds(63) + .milliseconds(990))
        let latency = AbsSendTime.latency(sent: sent, receivedAt: epoch + .seconds(64) + .milliseconds(10))
        #expect(abs(latency - 0.020) < 0.000_01, "across the wrap: \(latency)")
    }

    @Test("the writer puts abs-send-time after the mid in one RFC 8285 block; the sender's slot is where a parser finds it")
    func writerLayout() throws {
        var writer = RTPPacketWriter(ssrc: 0x0102_0304, payloadType: 111, midExtensionID: 1, mid: "0",
                                     absSendTimeExtensionID: 3)
        var buffer: [UInt8] = []
        ([0xAA, 0xBB] as [UInt8]).withUnsafeBytes { writer.write(into: &buffer, timestamp: 960, marker: false, payload: $0) }
        // 0xBEDE, 2 words: [1/L=0] '0' [3/L=2] t t t, 1 octet of padding.
        #expect(Array(buffer[12..<24]) == [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x30, 0x32, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(writer.absSendTimeOffset == 19 && writer.headerSize == 24)
        AbsSendTime.write(0x12_3456, into: &buffer, at: try #require(writer.absSendTimeOffset))
        let header = try RTPHeader.parse(buffer).get()
        let (time, mid) = buffer.withUnsafeBytes { bytes in
            (header.absSendTime(id: 3, in: bytes), header.extensionValueRange(id: 1, in: bytes).map { Array(buffer[$0]) })
        }
        #expect(time == 0x12_3456 && mid == Array("0".utf8))
        #expect(Array(buffer[header.payloadRange]) == [0xAA, 0xBB])

        let plain = RTPPacketWriter(ssrc: 1, payloadType: 111, midExtensionID: 1, mid: "0")
        #expect(plain.absSendTimeOffset == nil && plain.headerSize == 20)
    }

    @Test("the offer carries the extmap in both sections, or none with id 0")
    func offer() {
        let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
        let offered = MediaOffer(configuration: MediaClientConfiguration(absSendTimeExtensionID: 5), fingerprint: "sha-256 AB")
        #expect(offered.sdp(host: "127.0.0.1", port: 9).components(separatedBy: "a=extmap:5 \(uri)\r\n").count == 3)
        let none = MediaOffer(configuration: MediaClientConfiguration(absSendTimeExtensionID: 0), fingerprint: "sha-256 AB")
        #expect(!none.sdp(host: "127.0.0.1", port: 9).contains(uri))
    }

    @Test("FNV-1a 64 vectors")
    func fnv() {
        #expect(FNV1a.hash([]) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }
}

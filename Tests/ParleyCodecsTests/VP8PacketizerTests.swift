import Testing
@testable import ParleyCodecs

@Suite("RFC 7741 §4.4 packetization")
struct VP8PacketizerTests {
    @Test func splitsAFrameIntoEvenPayloadsWithMarkerOnTheLast() throws {
        var packetizer = try VP8Packetizer(maxPayloadSize: 1_188, pictureID: 0x1234)
        let frame = (0..<3_000).map { UInt8(truncatingIfNeeded: $0) }
        let payloads = packetizer.packetize(frame)
        #expect(payloads.count == 3)  // 1188 − 4-octet descriptor = 1184 per packet
        #expect(payloads.map(\.marker) == [false, false, true])
        #expect(payloads.allSatisfy { $0.bytes.count <= 1_188 })
        // S=1 only on the first; PID 0 everywhere; the same 15-bit PictureID on all.
        #expect(payloads.map { Array($0.bytes.prefix(4)) } == [
            [0x90, 0x80, 0x92, 0x34], [0x80, 0x80, 0x92, 0x34], [0x80, 0x80, 0x92, 0x34],
        ])
        #expect(payloads.flatMap { $0.bytes.dropFirst(4) } == frame)
        #expect(packetizer.nextPictureID == 0x1235)
    }

    @Test func pictureIDWrapsAt15Bits() throws {
        var packetizer = try VP8Packetizer(maxPayloadSize: 100, pictureID: 0x7FFF)
        #expect(packetizer.packetize([1, 2, 3])[0].bytes == [0x90, 0x80, 0xFF, 0xFF, 1, 2, 3])
        #expect(packetizer.packetize([4])[0].bytes == [0x90, 0x80, 0x80, 0x00, 4])
    }

    @Test func withoutPictureIDTheDescriptorIsOneOctet() throws {
        var packetizer = try VP8Packetizer(maxPayloadSize: 10, pictureID: nil)
        let payloads = packetizer.packetize(Array(repeating: 7, count: 20))
        #expect(payloads.count == 3)  // 9 data octets each at most: 7 + 7 + 6
        #expect(payloads.map(\.bytes.count) == [8, 8, 7])
        #expect(payloads.map(\.bytes[0]) == [0x10, 0x00, 0x00])
    }

    @Test func templateCarriesTheExtendedFields() throws {
        var packetizer = try VP8Packetizer(maxPayloadSize: 100, pictureID: 1)
        let template = VP8PayloadDescriptor(nonReference: true, tl0PicIdx: 9, temporalLayerID: 1, layerSync: true, keyIndex: 3)
        // B0 = X N S; F0 = I L T K; 80 01 = PictureID 1; 09; 0110 0011 = TID 1, Y, KEYIDX 3
        #expect(packetizer.packetize([0xEE], template: template)[0].bytes == [0xB0, 0xF0, 0x80, 0x01, 0x09, 0x63, 0xEE])
    }

    @Test func reusesTheOutputBuffers() throws {
        var packetizer = try VP8Packetizer(maxPayloadSize: 500)
        var payloads: [VP8RTPPayload] = []
        #expect(packetizer.packetize(Array(repeating: 1, count: 1_400), into: &payloads) == 3)
        #expect(packetizer.packetize(Array(repeating: 2, count: 10), into: &payloads) == 1)
        #expect(payloads.count == 1 && payloads[0].marker)
        #expect(packetizer.packetize([], into: &payloads) == 0 && payloads.isEmpty)
        #expect(throws: VP8PayloadError.self) { try VP8Packetizer(maxPayloadSize: 6) }
    }
}

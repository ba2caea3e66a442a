import Testing
@testable import ParleyCodecs

/// Hand-made RFC 7741 §4.2 descriptors, bit by bit. Each vector is followed by one VP8 octet (0x00)
/// because a descriptor with nothing after it is malformed.
@Suite("RFC 7741 §4.2 payload descriptor vectors")
struct VP8PayloadDescriptorVectors {
    static let vectors: [(name: String, bytes: [UInt8], descriptor: VP8PayloadDescriptor)] = [
        // 0001 0000: X=0 R=0 N=0 S=1 R=0 PID=000
        ("minimal start", [0x10], VP8PayloadDescriptor(startOfPartition: true)),
        // 1001 0000 | I=1 | M=1 PictureID=0x1234 (15 bits: 0010010 00110100)
        ("15-bit PictureID", [0x90, 0x80, 0x92, 0x34],
         VP8PayloadDescriptor(startOfPartition: true, pictureID: .long(0x1234))),
        // 1010 0011: X N PID=3 | I | M=0 PictureID=0x55
        ("7-bit PictureID, N, PID 3", [0xA3, 0x80, 0x55],
         VP8PayloadDescriptor(nonReference: true, partitionIndex: 3, pictureID: .short(0x55))),
        // 1011 0001 | I L T K = 1111 0000 | 1111 1111 1111 1111 | TL0PICIDX=0xAB | TID=10 Y=1 KEYIDX=10001
        ("every field", [0xB1, 0xF0, 0xFF, 0xFF, 0xAB, 0xB1],
         VP8PayloadDescriptor(nonReference: true, startOfPartition: true, partitionIndex: 1, pictureID: .long(0x7FFF),
                              tl0PicIdx: 0xAB, temporalLayerID: 2, layerSync: true, keyIndex: 0x11)),
        // 1000 0000 | L T = 0110 0000 | TL0PICIDX=7 | TID=01 Y=0 KEYIDX ignored (written 0)
        ("TL0PICIDX and TID, no PictureID", [0x80, 0x60, 0x07, 0x40],
         VP8PayloadDescriptor(tl0PicIdx: 7, temporalLayerID: 1)),
    ]

    @Test(arguments: 0..<vectors.count)
    func writesAndParsesTheVector(_ index: Int) throws {
        let vector = Self.vectors[index]
        #expect(vector.descriptor.bytes == vector.bytes, "\(vector.name)")
        #expect(vector.descriptor.encodedSize == vector.bytes.count)
        let parsed = try VP8PayloadDescriptor.parse(vector.bytes + [0x00]).get()
        #expect(parsed.descriptor == vector.descriptor, "\(vector.name)")
        #expect(parsed.length == vector.bytes.count)
    }

    @Test func reservedBitsAreIgnored() throws {
        // 0101 1000: R=1 S=1 R=1 PID=0; X octet 1000 1111 with RSV bits set, PictureID short 1.
        let parsed = try VP8PayloadDescriptor.parse([0xD8, 0x8F, 0x01, 0x00]).get()
        #expect(parsed.descriptor == VP8PayloadDescriptor(startOfPartition: true, pictureID: .short(1)))
        #expect(parsed.length == 3)
    }

    @Test func keyIndexWithoutTemporalLayerIgnoresTID() throws {
        // X | K only: 0001 0000 | TID=11 Y=0 KEYIDX=00101 → TID/Y ignored (K without T).
        let parsed = try VP8PayloadDescriptor.parse([0x80, 0x10, 0xC5, 0x00]).get()
        #expect(parsed.descriptor == VP8PayloadDescriptor(keyIndex: 5))
    }

    @Test func malformedDescriptorsAreErrors() {
        #expect(VP8PayloadDescriptor.parse([]) == .failure(.empty))
        #expect(VP8PayloadDescriptor.parse([0x80]) == .failure(.truncated))            // X but no X octet
        #expect(VP8PayloadDescriptor.parse([0x80, 0x80]) == .failure(.truncated))      // I but no PictureID
        #expect(VP8PayloadDescriptor.parse([0x80, 0x80, 0x80]) == .failure(.truncated)) // M=1 needs 2 octets
        #expect(VP8PayloadDescriptor.parse([0x80, 0x40]) == .failure(.truncated))      // L but no TL0PICIDX
        #expect(VP8PayloadDescriptor.parse([0x80, 0x20]) == .failure(.truncated))      // T but no TID octet
        #expect(VP8PayloadDescriptor.parse([0x10]) == .failure(.noPayloadData))
        #expect(VP8PayloadDescriptor.parse([0x90, 0x80, 0x81, 0x02]) == .failure(.noPayloadData))
    }
}

extension Result where Success == (descriptor: VP8PayloadDescriptor, length: Int), Failure == VP8PayloadError {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.failure(let a), .failure(let b)): a == b
        case (.success(let a), .success(let b)): a.descriptor == b.descriptor && a.length == b.length
        default: false
        }
    }
}

/// 64-bit FNV-1a (draft-eastlake-fnv §2.1): a cheap, non-cryptographic hash, here to recognise
/// a frame's exact bytes in ``PreEncodedMedia``. Only for bytes we compare with our own; an
/// attacker could craft collisions.
enum FNV1a {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x100_0000_01b3

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = offsetBasis
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
        return hash
    }

    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The same steps over eight bytes at a time (little-endian words, then the last bytes one
    /// by one), and the length: about eight times fewer multiplications, for the receivers that
    /// check every frame of a load test. Not FNV-1a's value; only ever compared with itself.
    static func wordHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = offsetBasis ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian) &* prime
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* prime
            offset += 1
        }
        return hash
    }

    static func wordHash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { wordHash($0) }
    }
}

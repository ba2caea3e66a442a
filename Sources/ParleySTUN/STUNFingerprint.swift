/// CRC-32 as used by FINGERPRINT (RFC 8489 §14.7): the ISO/IEEE 802.3 polynomial, reflected
/// (0xEDB88320), initial value and final XOR 0xFFFFFFFF — the same CRC as zlib and PNG.
public enum CRC32 {
    /// The 256-entry lookup table, built once.
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The CRC-32 of an array.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}

enum Fingerprint {
    /// XORed into the CRC so that STUN is told from other protocols' CRCs (RFC 8489 §14.7).
    static let xorValue: UInt32 = 0x5354_554E
    static let attributeSize = 8

    /// The FINGERPRINT value of `bytes[0..<end]`, whose header must already count the attribute.
    static func compute(_ bytes: UnsafeRawBufferPointer, end: Int) -> UInt32 {
        CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<end])) ^ xorValue
    }
}

extension STUNMessage {
    /// Checks FINGERPRINT (RFC 8489 §14.7) of the message that was parsed from `bytes`: the
    /// CRC-32 of everything before the attribute, XOR 0x5354554E. False when the message has
    /// no FINGERPRINT, `bytes` is not the parsed message, or the value does not match.
    public func verifyFingerprint(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let offset = fingerprintOffset, bytes.count == byteCount,
              offset + Fingerprint.attributeSize == bytes.count else { return false }
        return Fingerprint.compute(bytes, end: offset) == bytes.readBE32(at: offset + 4)
    }

    /// Checks FINGERPRINT of the message parsed from an array.
    public func verifyFingerprint(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { verifyFingerprint($0) }
    }
}

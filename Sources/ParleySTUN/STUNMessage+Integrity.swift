import Crypto
import Foundation

/// A MESSAGE-INTEGRITY key (RFC 8489 §9.1.1). For ICE's short-term credentials the key is the
/// password's bytes (RFC 8445 §7.2.2; OpaqueString leaves ICE's ASCII passwords unchanged).
///
/// Make one per ICE session and keep it: building the HMAC key is the costly part.
public struct STUNIntegrityKey: Sendable {
    let key: SymmetricKey

    /// A short-term credential key from the ICE password (`a=ice-pwd`).
    public init(password: String) {
        self.key = SymmetricKey(data: Array(password.utf8))
    }

    /// A key from raw bytes (e.g. a long-term MD5 key, RFC 8489 §9.2.2).
    public init(bytes: [UInt8]) {
        self.key = SymmetricKey(data: bytes)
    }
}

enum MessageIntegrity {
    static let attributeSize = 24

    /// HMAC-SHA1 over `bytes[0..<end]` as if the header's length field were `length`
    /// (RFC 8489 §14.5: the length counts up to and including MESSAGE-INTEGRITY).
    static func compute(_ bytes: UnsafeRawBufferPointer, end: Int, length: UInt16,
                        key: STUNIntegrityKey) -> HashedAuthenticationCode<Insecure.SHA1> {
        var hmac = HMAC<Insecure.SHA1>(key: key.key)
        hmac.update(data: UnsafeRawBufferPointer(rebasing: bytes[0..<2]))
        let lengthBytes: (UInt8, UInt8) = (UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length))
        withUnsafeBytes(of: lengthBytes) { hmac.update(data: $0) }
        hmac.update(data: UnsafeRawBufferPointer(rebasing: bytes[4..<end]))
        return hmac.finalize()
    }
}

extension STUNMessage {
    /// Checks MESSAGE-INTEGRITY (RFC 8489 §14.5) of the message that was parsed from `bytes`.
    ///
    /// The HMAC covers the message up to the attribute, with the header length adjusted to end
    /// right after it, so a FINGERPRINT that follows does not disturb it. False when the message
    /// has no MESSAGE-INTEGRITY, `bytes` is not the parsed message, or the code does not match.
    public func verifyMessageIntegrity(_ bytes: UnsafeRawBufferPointer, key: STUNIntegrityKey) -> Bool {
        guard let offset = messageIntegrityOffset, bytes.count == byteCount,
              offset + MessageIntegrity.attributeSize <= bytes.count else { return false }
        let length = UInt16(offset + MessageIntegrity.attributeSize - STUNHeader.size)
        let mac = MessageIntegrity.compute(bytes, end: offset, length: length, key: key)
        return mac.withUnsafeBytes { expected in
            // Constant-time comparison: do not reveal how many leading bytes matched.
            var difference: UInt8 = 0
            for index in 0..<20 { difference |= expected[index] ^ bytes[offset + 4 + index] }
            return difference == 0
        }
    }

    /// Checks MESSAGE-INTEGRITY of the message parsed from an array.
    public func verifyMessageIntegrity(_ bytes: [UInt8], key: STUNIntegrityKey) -> Bool {
        bytes.withUnsafeBytes { verifyMessageIntegrity($0, key: key) }
    }
}

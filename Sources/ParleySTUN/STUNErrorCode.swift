/// The ERROR-CODE attribute (RFC 8489 §14.8): a code from 300 to 699 and a reason phrase.
///
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           Reserved, should be 0         |Class|     Number    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      Reason Phrase (variable)                                ..
/// ```
public struct STUNErrorCode: Sendable, Hashable {
    /// The numeric code, e.g. 401.
    public var code: Int
    /// A human-readable reason (UTF-8, at most 128 characters per RFC 8489 §14.8).
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// 400 Bad Request (RFC 8489 §14.8).
    public static let badRequest = STUNErrorCode(code: 400, reason: "Bad Request")
    /// 401 Unauthenticated: wrong or missing credentials (RFC 8489 §14.8).
    public static let unauthenticated = STUNErrorCode(code: 401, reason: "Unauthenticated")
    /// 420 Unknown Attribute (RFC 8489 §14.8); send with UNKNOWN-ATTRIBUTES.
    public static let unknownAttribute = STUNErrorCode(code: 420, reason: "Unknown Attribute")
    /// 487 Role Conflict (RFC 8445 §7.3.1.1).
    public static let roleConflict = STUNErrorCode(code: 487, reason: "Role Conflict")
    /// 500 Server Error (RFC 8489 §14.8).
    public static let serverError = STUNErrorCode(code: 500, reason: "Server Error")

    /// Decodes a value; nil when shorter than 4 bytes or the class/number is out of range.
    static func decode(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) -> STUNErrorCode? {
        guard range.count >= 4 else { return nil }
        let errorClass = Int(bytes[range.lowerBound + 2] & 0x07)
        let number = Int(bytes[range.lowerBound + 3])
        guard (3...6).contains(errorClass), number < 100 else { return nil }
        let reason = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(range.lowerBound + 4)..<range.upperBound]),
                            as: UTF8.self)
        return STUNErrorCode(code: errorClass * 100 + number, reason: reason)
    }

    /// The attribute value (without the TLV header); the code is clamped into 300...699.
    var encodedValue: [UInt8] {
        let clamped = min(max(code, 300), 699)
        var value: [UInt8] = [0, 0, UInt8(clamped / 100), UInt8(clamped % 100)]
        value.append(contentsOf: Array(reason.utf8.prefix(763)))
        return value
    }
}

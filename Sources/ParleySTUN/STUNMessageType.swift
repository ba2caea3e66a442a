/// The class of a STUN message (RFC 8489 §5): request, indication, success or error response.
public enum STUNMessageClass: UInt8, Sendable, Hashable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN method (RFC 8489 §5, §18.2), the 12-bit number spread over the message type.
public struct STUNMethod: RawRepresentable, Sendable, Hashable {
    /// The method number; only the low 12 bits are meaningful.
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue & 0x0FFF
    }

    /// Binding (RFC 8489 §18.2), the only method ICE uses.
    public static let binding = STUNMethod(rawValue: 0x001)
}

/// The 16-bit STUN message type: a method and a class interleaved (RFC 8489 §5, Figure 3).
///
/// ```
///  0                 1
///  2  3  4 5 6 7 8 9 0 1 2 3 4 5
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
/// |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNMessageType: Sendable, Hashable {
    public var method: STUNMethod
    public var messageClass: STUNMessageClass

    public init(method: STUNMethod, messageClass: STUNMessageClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Decodes the type field; nil when either of the two most significant bits is set
    /// (RFC 8489 §6: they are always zero, which is what tells STUN from other protocols).
    public init?(rawValue: UInt16) {
        guard rawValue & 0xC000 == 0 else { return nil }
        let m = (rawValue & 0x000F) | ((rawValue & 0x00E0) >> 1) | ((rawValue & 0x3E00) >> 2)
        let c = ((rawValue & 0x0010) >> 4) | ((rawValue & 0x0100) >> 7)
        self.method = STUNMethod(rawValue: m)
        self.messageClass = STUNMessageClass(rawValue: UInt8(c))!  // c is 0...3
    }

    /// The encoded 16-bit type field.
    public var rawValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2)
            | ((c & 0b01) << 4) | ((c & 0b10) << 7)
    }

    /// Binding request, 0x0001.
    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    /// Binding indication, 0x0011.
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)
    /// Binding success response, 0x0101.
    public static let bindingSuccessResponse = STUNMessageType(method: .binding, messageClass: .successResponse)
    /// Binding error response, 0x0111.
    public static let bindingErrorResponse = STUNMessageType(method: .binding, messageClass: .errorResponse)
}

/// STUN attribute type numbers used by Parley (RFC 8489 §14, §18.3; RFC 8445 §16.1).
///
/// Types below 0x8000 are comprehension-required: an agent that does not know one must reject
/// the request with 420 (RFC 8489 §14). Types from 0x8000 are comprehension-optional.
public enum STUNAttributeType {
    public static let mappedAddress: UInt16 = 0x0001
    public static let username: UInt16 = 0x0006
    public static let messageIntegrity: UInt16 = 0x0008
    public static let errorCode: UInt16 = 0x0009
    public static let unknownAttributes: UInt16 = 0x000A
    public static let realm: UInt16 = 0x0014
    public static let nonce: UInt16 = 0x0015
    public static let messageIntegritySHA256: UInt16 = 0x001C
    public static let passwordAlgorithm: UInt16 = 0x001D
    public static let userhash: UInt16 = 0x001E
    public static let xorMappedAddress: UInt16 = 0x0020
    /// RFC 8445 §16.1.
    public static let priority: UInt16 = 0x0024
    /// RFC 8445 §16.1.
    public static let useCandidate: UInt16 = 0x0025
    public static let passwordAlgorithms: UInt16 = 0x8002
    public static let alternateDomain: UInt16 = 0x8003
    public static let software: UInt16 = 0x8022
    public static let alternateServer: UInt16 = 0x8023
    public static let fingerprint: UInt16 = 0x8028
    /// RFC 8445 §16.1.
    public static let iceControlled: UInt16 = 0x8029
    /// RFC 8445 §16.1.
    public static let iceControlling: UInt16 = 0x802A

    /// Whether an agent that does not understand `type` must reject the message (RFC 8489 §14).
    @inlinable
    public static func isComprehensionRequired(_ type: UInt16) -> Bool {
        type < 0x8000
    }
}

/// Serialises a STUN message attribute by attribute (RFC 8489 §5, §14).
///
/// Add attributes in order, then MESSAGE-INTEGRITY, then FINGERPRINT, which must be last
/// (RFC 8489 §14.7). The header length is kept up to date after every call, and padding is
/// written as zeros.
public struct STUNMessageBuilder: Sendable {
    /// The message so far, a complete and valid message after every call.
    public private(set) var bytes: [UInt8]
    /// The transaction id written in the header.
    public let transactionID: STUNTransactionID

    public init(type: STUNMessageType, transactionID: STUNTransactionID) {
        self.transactionID = transactionID
        var header: [UInt8] = []
        header.reserveCapacity(128)
        header.appendBE16(type.rawValue)
        header.appendBE16(0)
        header.appendBE32(STUNHeader.magicCookie)
        transactionID.append(to: &header)
        self.bytes = header
    }

    /// Appends an attribute of any type, padding its value to 4 bytes (RFC 8489 §14).
    public mutating func append(type: UInt16, value: some Collection<UInt8>) {
        let length = min(value.count, Int(UInt16.max))
        bytes.appendBE16(type)
        bytes.appendBE16(UInt16(length))
        bytes.append(contentsOf: value.prefix(length))
        let padding = (4 - length & 3) & 3
        for _ in 0..<padding { bytes.append(0) }
        updateLength()
    }

    /// USERNAME (RFC 8489 §14.3).
    public mutating func appendUsername(_ username: String) {
        append(type: STUNAttributeType.username, value: Array(username.utf8))
    }

    /// SOFTWARE (RFC 8489 §14.14).
    public mutating func appendSoftware(_ software: String) {
        append(type: STUNAttributeType.software, value: Array(software.utf8))
    }

    /// PRIORITY (RFC 8445 §7.1.1).
    public mutating func appendPriority(_ priority: UInt32) {
        var value: [UInt8] = []
        value.appendBE32(priority)
        append(type: STUNAttributeType.priority, value: value)
    }

    /// USE-CANDIDATE, which has no value (RFC 8445 §7.1.2).
    public mutating func appendUseCandidate() {
        append(type: STUNAttributeType.useCandidate, value: EmptyCollection())
    }

    /// ICE-CONTROLLING with its tie-breaker (RFC 8445 §7.1.3).
    public mutating func appendICEControlling(tieBreaker: UInt64) {
        var value: [UInt8] = []
        value.appendBE64(tieBreaker)
        append(type: STUNAttributeType.iceControlling, value: value)
    }

    /// ICE-CONTROLLED with its tie-breaker (RFC 8445 §7.1.3).
    public mutating func appendICEControlled(tieBreaker: UInt64) {
        var value: [UInt8] = []
        value.appendBE64(tieBreaker)
        append(type: STUNAttributeType.iceControlled, value: value)
    }

    /// XOR-MAPPED-ADDRESS, XORed with this message's transaction id (RFC 8489 §14.2).
    public mutating func appendXORMappedAddress(_ address: STUNTransportAddress) {
        append(type: STUNAttributeType.xorMappedAddress,
               value: XORMappedAddressCoding.encode(address, transactionID: transactionID))
    }

    /// ERROR-CODE (RFC 8489 §14.8).
    public mutating func appendErrorCode(_ error: STUNErrorCode) {
        append(type: STUNAttributeType.errorCode, value: error.encodedValue)
    }

    /// UNKNOWN-ATTRIBUTES, the list a 420 response carries (RFC 8489 §14.9).
    public mutating func appendUnknownAttributes(_ types: [UInt16]) {
        var value: [UInt8] = []
        for type in types { value.appendBE16(type) }
        append(type: STUNAttributeType.unknownAttributes, value: value)
    }

    /// MESSAGE-INTEGRITY over everything so far (RFC 8489 §14.5).
    public mutating func appendMessageIntegrity(key: STUNIntegrityKey) {
        let end = bytes.count
        let length = UInt16(end + MessageIntegrity.attributeSize - STUNHeader.size)
        let mac = bytes.withUnsafeBytes { MessageIntegrity.compute($0, end: end, length: length, key: key) }
        append(type: STUNAttributeType.messageIntegrity, value: Array(mac))
    }

    /// FINGERPRINT over everything so far (RFC 8489 §14.7); add nothing after it.
    public mutating func appendFingerprint() {
        let end = bytes.count
        bytes.storeBE16(UInt16(end + Fingerprint.attributeSize - STUNHeader.size), at: 2)
        let crc = bytes.withUnsafeBytes { Fingerprint.compute($0, end: end) }
        var value: [UInt8] = []
        value.appendBE32(crc)
        append(type: STUNAttributeType.fingerprint, value: value)
    }

    private mutating func updateLength() {
        bytes.storeBE16(UInt16(truncatingIfNeeded: bytes.count - STUNHeader.size), at: 2)
    }
}

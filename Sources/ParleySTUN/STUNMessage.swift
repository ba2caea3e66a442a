/// A parsed STUN message (RFC 8489) with the attributes ICE uses decoded (RFC 8445 §7).
///
/// Parsing checks the header, the magic cookie, the length against the datagram, that every
/// attribute fits and is padded to a 4-byte boundary, and the size of each known attribute.
/// It does not check MESSAGE-INTEGRITY or FINGERPRINT: call ``verifyMessageIntegrity(_:key:)``
/// and ``verifyFingerprint(_:)`` with the same bytes afterwards.
public struct STUNMessage: Sendable, Hashable {
    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// USERNAME (RFC 8489 §14.3); for ICE "receiver-ufrag:sender-ufrag" (RFC 8445 §7.2.2).
    public var username: String?
    /// SOFTWARE (RFC 8489 §14.14).
    public var software: String?
    /// PRIORITY (RFC 8445 §7.1.1).
    public var priority: UInt32?
    /// USE-CANDIDATE present (RFC 8445 §7.1.2).
    public var useCandidate: Bool = false
    /// ICE-CONTROLLING tie-breaker (RFC 8445 §7.1.3).
    public var iceControlling: UInt64?
    /// ICE-CONTROLLED tie-breaker (RFC 8445 §7.1.3).
    public var iceControlled: UInt64?
    /// XOR-MAPPED-ADDRESS (RFC 8489 §14.2).
    public var xorMappedAddress: STUNTransportAddress?
    /// ERROR-CODE (RFC 8489 §14.8).
    public var errorCode: STUNErrorCode?
    /// Comprehension-required attribute types this codec does not know, in order of
    /// appearance; a request carrying any must be answered with 420 (RFC 8489 §7.3.1).
    public var unknownComprehensionRequired: [UInt16] = []
    /// Offset of the MESSAGE-INTEGRITY attribute header, if present.
    public var messageIntegrityOffset: Int?
    /// Offset of the FINGERPRINT attribute header, if present.
    public var fingerprintOffset: Int?
    /// Total size of the message in bytes (header included).
    public var byteCount: Int

    public init(type: STUNMessageType, transactionID: STUNTransactionID, byteCount: Int = STUNHeader.size) {
        self.type = type
        self.transactionID = transactionID
        self.byteCount = byteCount
    }

    /// Parses one STUN message that fills `bytes` exactly (one UDP datagram).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<STUNMessage, STUNParseError> {
        guard bytes.count >= STUNHeader.size else { return .failure(.tooShort) }
        guard let type = STUNMessageType(rawValue: bytes.readBE16(at: 0)) else { return .failure(.notSTUN) }
        guard bytes.readBE32(at: 4) == STUNHeader.magicCookie else { return .failure(.badMagicCookie) }
        let length = Int(bytes.readBE16(at: 2))
        guard length & 3 == 0 else { return .failure(.lengthNotMultipleOfFour) }
        guard length + STUNHeader.size == bytes.count else { return .failure(.lengthMismatch) }
        let id = STUNTransactionID(bytes.readBE32(at: 8), bytes.readBE32(at: 12), bytes.readBE32(at: 16))

        var message = STUNMessage(type: type, transactionID: id, byteCount: bytes.count)
        var iterator = STUNAttributeIterator(bytes)
        while let attribute = iterator.next() {
            if message.fingerprintOffset != nil { return .failure(.attributeAfterFingerprint) }
            if let error = message.absorb(attribute, from: bytes) { return .failure(error) }
        }
        if let error = iterator.truncated { return .failure(error) }
        return .success(message)
    }

    /// Parses one STUN message held in an array, without copying it.
    public static func parse(_ bytes: [UInt8]) -> Result<STUNMessage, STUNParseError> {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Parses one STUN message held in an array slice, without copying it.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<STUNMessage, STUNParseError> {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Records one attribute; returns an error for a known attribute with a bad value.
    private mutating func absorb(_ attribute: STUNRawAttribute, from bytes: UnsafeRawBufferPointer) -> STUNParseError? {
        let range = attribute.valueRange
        let type = attribute.type
        // RFC 8489 §14.5: attributes after MESSAGE-INTEGRITY are ignored, except FINGERPRINT
        // (and MESSAGE-INTEGRITY-SHA256, which this codec does not use).
        if messageIntegrityOffset != nil, type != STUNAttributeType.fingerprint { return nil }
        switch type {
        case STUNAttributeType.username:
            guard range.count <= 513 else { return .malformedAttribute(type: type) }
            if username == nil { username = string(bytes, range) }
        case STUNAttributeType.software:
            if software == nil { software = string(bytes, range) }
        case STUNAttributeType.priority:
            guard range.count == 4 else { return .malformedAttribute(type: type) }
            if priority == nil { priority = bytes.readBE32(at: range.lowerBound) }
        case STUNAttributeType.useCandidate:
            guard range.isEmpty else { return .malformedAttribute(type: type) }
            useCandidate = true
        case STUNAttributeType.iceControlling:
            guard range.count == 8 else { return .malformedAttribute(type: type) }
            if iceControlling == nil { iceControlling = bytes.readBE64(at: range.lowerBound) }
        case STUNAttributeType.iceControlled:
            guard range.count == 8 else { return .malformedAttribute(type: type) }
            if iceControlled == nil { iceControlled = bytes.readBE64(at: range.lowerBound) }
        case STUNAttributeType.xorMappedAddress:
            guard let address = XORMappedAddressCoding.decode(bytes, range: range, transactionID: transactionID) else {
                return .malformedAttribute(type: type)
            }
            if xorMappedAddress == nil { xorMappedAddress = address }
        case STUNAttributeType.errorCode:
            guard let error = STUNErrorCode.decode(bytes, range: range) else { return .malformedAttribute(type: type) }
            if errorCode == nil { errorCode = error }
        case STUNAttributeType.messageIntegrity:
            guard range.count == 20 else { return .malformedAttribute(type: type) }
            messageIntegrityOffset = attribute.offset
        case STUNAttributeType.fingerprint:
            guard range.count == 4 else { return .malformedAttribute(type: type) }
            fingerprintOffset = attribute.offset
        case STUNAttributeType.mappedAddress, STUNAttributeType.unknownAttributes, STUNAttributeType.realm,
             STUNAttributeType.nonce, STUNAttributeType.messageIntegritySHA256, STUNAttributeType.passwordAlgorithm,
             STUNAttributeType.userhash:
            break  // Understood by STUN, not used by an ICE-lite agent: skipped.
        default:
            if STUNAttributeType.isComprehensionRequired(type) { unknownComprehensionRequired.append(type) }
        }
        return nil
    }

    private func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}

/// The role an ICE agent claims in a connectivity check (RFC 8445 §7.1.3), with its tie-breaker.
public enum ICERole: Sendable, Hashable {
    case controlling(tieBreaker: UInt64)
    case controlled(tieBreaker: UInt64)
}

extension STUNMessageBuilder {
    /// An ICE connectivity check (RFC 8445 §7.2.2): a Binding request with USERNAME, PRIORITY,
    /// the role attribute, USE-CANDIDATE when nominating, then MESSAGE-INTEGRITY keyed with the
    /// remote password and FINGERPRINT.
    public static func bindingRequest(
        transactionID: STUNTransactionID, username: String, priority: UInt32,
        role: ICERole, useCandidate: Bool, key: STUNIntegrityKey
    ) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: transactionID)
        builder.appendUsername(username)
        builder.appendPriority(priority)
        switch role {
        case .controlling(let tieBreaker): builder.appendICEControlling(tieBreaker: tieBreaker)
        case .controlled(let tieBreaker): builder.appendICEControlled(tieBreaker: tieBreaker)
        }
        if useCandidate { builder.appendUseCandidate() }
        builder.appendMessageIntegrity(key: key)
        builder.appendFingerprint()
        return builder.bytes
    }

    /// The answer to a valid check (RFC 8445 §7.3.1.4, RFC 8489 §7.3.1): a Binding success
    /// response with XOR-MAPPED-ADDRESS set to the request's source, MESSAGE-INTEGRITY keyed
    /// with the local password, and FINGERPRINT.
    public static func bindingSuccessResponse(
        transactionID: STUNTransactionID, mappedAddress: STUNTransportAddress, key: STUNIntegrityKey
    ) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingSuccessResponse, transactionID: transactionID)
        builder.appendXORMappedAddress(mappedAddress)
        builder.appendMessageIntegrity(key: key)
        builder.appendFingerprint()
        return builder.bytes
    }

    /// A Binding error response (RFC 8489 §7.3.1.1) — e.g. 400 for a malformed check, 401 for
    /// bad credentials (sent without MESSAGE-INTEGRITY: pass no key), 420 with the unknown
    /// types, 487 for a role conflict (RFC 8445 §7.3.1.1) — ending with FINGERPRINT.
    public static func bindingErrorResponse(
        transactionID: STUNTransactionID, error: STUNErrorCode,
        unknownAttributes: [UInt16] = [], key: STUNIntegrityKey?
    ) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingErrorResponse, transactionID: transactionID)
        builder.appendErrorCode(error)
        if !unknownAttributes.isEmpty { builder.appendUnknownAttributes(unknownAttributes) }
        if let key { builder.appendMessageIntegrity(key: key) }
        builder.appendFingerprint()
        return builder.bytes
    }
}

import NIOCore
import ParleySTUN

/// The relay's half of ICE for one leg: a lite agent (RFC 8445 §2.5), always controlled, that
/// only answers connectivity checks, plus consent freshness (RFC 7675).
///
/// A pure state machine: no socket, no clock of its own (`now` is passed in), so tests drive it.
/// - Every check whose USERNAME is "relayUfrag:clientUfrag" and whose MESSAGE-INTEGRITY verifies
///   with the leg's password gets a Binding success (RFC 8445 §7.3.1.4) and makes its source a
///   valid address for the leg (DTLS and SRTP are accepted from valid addresses only).
/// - A check with USE-CANDIDATE nominates its source (RFC 8445 §7.3.1.5): media to the client
///   goes there. aiortc sends one check without USE-CANDIDATE before the nominating one, and a
///   client may move (a new nomination wins).
/// - Consent (RFC 7675 §5.1): every valid check refreshes it; none for ``consentTimeout`` and the
///   leg is dead. The clock starts at creation, so a client that never checks also dies.
public struct ICELiteAgent: Sendable {
    /// Most addresses remembered per leg; older ones are forgotten first.
    static let maxValidAddresses = 8

    public let localUfrag: String
    public let localPassword: String
    public let remoteUfrag: String
    /// "localUfrag:remoteUfrag", what a check's USERNAME must be (RFC 8445 §7.2.2).
    public let expectedUsername: String
    let key: STUNIntegrityKey
    public let consentTimeout: TimeAmount

    /// Sources of valid checks, oldest first.
    public private(set) var validAddresses: [PeerAddress] = []
    /// Where the client nominated (USE-CANDIDATE); media is sent only here.
    public private(set) var nominated: PeerAddress?
    /// The last valid check, or the creation time before any.
    public private(set) var lastConsent: NIODeadline
    /// Whether any check was valid yet.
    public private(set) var hasValidCheck = false

    /// What to do with one Binding request.
    public enum CheckOutcome: Sendable, Equatable {
        /// Valid: send `response` back to the source.
        case success(response: [UInt8], isNewAddress: Bool, nominatedNow: Bool)
        /// Authenticated but unacceptable (unknown comprehension-required attributes, RFC 8489
        /// §7.3.1): send this error response.
        case errorResponse([UInt8])
        /// Not for this leg or not authentic: send nothing, count the reason.
        case drop(DropReason)
    }

    /// Whether consent is still fresh.
    public enum Consent: Sendable, Equatable {
        case fresh
        /// Never had a valid check within the timeout.
        case neverGranted
        /// Had one, but none within the timeout.
        case expired
    }

    public init(localUfrag: String, localPassword: String, remoteUfrag: String,
                consentTimeout: TimeAmount = .seconds(30), now: NIODeadline) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        self.expectedUsername = localUfrag + ":" + remoteUfrag
        self.key = STUNIntegrityKey(password: localPassword)
        self.consentTimeout = consentTimeout
        self.lastConsent = now
    }

    /// Handles a Binding request parsed from `bytes` that arrived from `source`.
    public mutating func handleBindingRequest(_ message: STUNMessage, bytes: UnsafeRawBufferPointer,
                                              from source: PeerAddress, now: NIODeadline) -> CheckOutcome {
        guard message.type == .bindingRequest else { return .drop(.stunIgnored) }
        guard message.username == expectedUsername else { return .drop(.unknownUsername) }
        // RFC 8489 §14.7 / §14.5: FINGERPRINT (when present) and MESSAGE-INTEGRITY must verify.
        if message.fingerprintOffset != nil, !message.verifyFingerprint(bytes) { return .drop(.badIntegrity) }
        guard message.verifyMessageIntegrity(bytes, key: key) else { return .drop(.badIntegrity) }
        if !message.unknownComprehensionRequired.isEmpty {
            return .errorResponse(STUNMessageBuilder.bindingErrorResponse(
                transactionID: message.transactionID, error: .unknownAttribute,
                unknownAttributes: message.unknownComprehensionRequired, key: key))
        }

        var isNew = false
        if !validAddresses.contains(source) {
            isNew = true
            if validAddresses.count == Self.maxValidAddresses { validAddresses.removeFirst() }
            validAddresses.append(source)
        }
        var nominatedNow = false
        if message.useCandidate, nominated != source {
            nominated = source
            nominatedNow = true
        }
        lastConsent = now
        hasValidCheck = true
        let response = STUNMessageBuilder.bindingSuccessResponse(
            transactionID: message.transactionID, mappedAddress: source.transportAddress, key: key)
        return .success(response: response, isNewAddress: isNew, nominatedNow: nominatedNow)
    }

    /// Whether `address` passed a connectivity check for this leg.
    public func isValid(_ address: PeerAddress) -> Bool {
        validAddresses.contains(address)
    }

    /// Consent as of `now` (RFC 7675 §5.1).
    public func consent(now: NIODeadline) -> Consent {
        guard now - lastConsent > consentTimeout else { return .fresh }
        return hasValidCheck ? .expired : .neverGranted
    }
}

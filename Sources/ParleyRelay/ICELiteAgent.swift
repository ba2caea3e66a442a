import NIOCore
import ParleySTUN

/// The relay's half of ICE for one leg: a lite agent (RFC 8445 §2.5), always controlled, that
/// only answers connectivity checks, plus consent freshness (RFC 7675) and ICE restarts
/// (RFC 8445 §9, RFC 8839 §4.4.1.1.1).
///
/// A pure state machine: no socket, no clock of its own (`now` is passed in), so tests drive it.
/// - Every check whose USERNAME is "relayUfrag:clientUfrag" and whose MESSAGE-INTEGRITY verifies
///   with the leg's password gets a Binding success (RFC 8445 §7.3.1.4) and makes its source a
///   valid address for the leg (DTLS and SRTP are accepted from valid addresses only). Which
///   address media goes to is ``MediaPath``'s decision; the outcome says whether the check
///   carried USE-CANDIDATE and which credentials it used.
/// - Restart: ``restart(localUfrag:localPassword:remoteUfrag:now:)`` adds a pending set of
///   credentials beside the current one. The client keeps using the old pair until its new
///   checks succeed (RFC 8445 §9), so old checks stay valid until the first valid check with the
///   new credentials; from then on old ones are answered for ``restartOverlap`` more (checks
///   already in flight, consent on the old pair) and then dropped as ``DropReason/staleCredentials``.
/// - Consent (RFC 7675 §5.1): every valid check refreshes it; none for ``consentTimeout`` and the
///   leg is dead. The clock starts at creation, so a client that never checks also dies.
public struct ICELiteAgent: Sendable {
    /// Most addresses remembered per leg; older ones are forgotten first.
    static let maxValidAddresses = 8
    /// How long checks with replaced credentials are still answered once the new ones were used.
    public static let restartOverlap: TimeAmount = .seconds(2)

    /// One generation of ICE credentials: the relay's ufrag/pwd and the client's ufrag.
    public struct Credentials: Sendable {
        public let localUfrag: String
        public let localPassword: String
        public let remoteUfrag: String
        /// "localUfrag:remoteUfrag", what a check's USERNAME must be (RFC 8445 §7.2.2).
        public let expectedUsername: String
        let key: STUNIntegrityKey

        public init(localUfrag: String, localPassword: String, remoteUfrag: String) {
            self.localUfrag = localUfrag
            self.localPassword = localPassword
            self.remoteUfrag = remoteUfrag
            expectedUsername = localUfrag + ":" + remoteUfrag
            key = STUNIntegrityKey(password: localPassword)
        }
    }

    /// The credentials in use (the last ones a valid check used, or the first).
    public private(set) var current: Credentials
    /// Credentials from a restart answer that no check has used yet.
    public private(set) var pending: Credentials?
    /// Replaced credentials, still answered until `until`.
    public private(set) var retiring: (credentials: Credentials, until: NIODeadline)?
    public let consentTimeout: TimeAmount

    public var localUfrag: String { current.localUfrag }
    public var localPassword: String { current.localPassword }
    public var remoteUfrag: String { current.remoteUfrag }
    /// Every relay ufrag a check may still name: the leg's keys in the relay's ufrag table.
    public var localUfrags: [String] {
        [current.localUfrag] + [pending?.localUfrag, retiring?.credentials.localUfrag].compactMap { $0 }
    }

    /// Sources of valid checks, oldest first.
    public private(set) var validAddresses: [PeerAddress] = []
    /// The last valid check, or the creation time before any.
    public private(set) var lastConsent: NIODeadline
    /// Whether any check was valid yet.
    public private(set) var hasValidCheck = false

    /// Which credentials a valid check used.
    public enum CredentialUse: Sendable, Equatable {
        /// The current ones.
        case current
        /// The pending ones of a restart, first used by this check: they are current now.
        case renewed
        /// Replaced ones, within the overlap.
        case retiring
    }

    /// What to do with one Binding request.
    public enum CheckOutcome: Sendable, Equatable {
        /// Valid: send `response` back to the source.
        case success(response: [UInt8], isNewAddress: Bool, useCandidate: Bool, credentials: CredentialUse)
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
        current = Credentials(localUfrag: localUfrag, localPassword: localPassword, remoteUfrag: remoteUfrag)
        self.consentTimeout = consentTimeout
        self.lastConsent = now
    }

    /// Takes the credentials of an ICE restart (RFC 8445 §9): they become current at the first
    /// valid check that uses them. A second restart before that replaces the unused pending
    /// ones (the client never switched to them). Returns the relay ufrags no longer held.
    @discardableResult
    public mutating func restart(localUfrag: String, localPassword: String, remoteUfrag: String,
                                 now: NIODeadline) -> [String] {
        let before = localUfrags
        pending = Credentials(localUfrag: localUfrag, localPassword: localPassword, remoteUfrag: remoteUfrag)
        if let retiring, now > retiring.until { self.retiring = nil }
        return before.filter { !localUfrags.contains($0) }
    }

    /// Handles a Binding request parsed from `bytes` that arrived from `source`.
    public mutating func handleBindingRequest(_ message: STUNMessage, bytes: UnsafeRawBufferPointer,
                                              from source: PeerAddress, now: NIODeadline) -> CheckOutcome {
        guard message.type == .bindingRequest else { return .drop(.stunIgnored) }
        let use: CredentialUse
        let credentials: Credentials
        switch message.username {
        case current.expectedUsername?:
            (use, credentials) = (.current, current)
        case let name? where name == pending?.expectedUsername:
            (use, credentials) = (.renewed, pending!)
        case let name? where name == retiring?.credentials.expectedUsername:
            guard let retiring, now <= retiring.until else { return .drop(.staleCredentials) }
            (use, credentials) = (.retiring, retiring.credentials)
        default:
            return .drop(.unknownUsername)
        }
        // RFC 8489 §14.7 / §14.5: FINGERPRINT (when present) and MESSAGE-INTEGRITY must verify.
        if message.fingerprintOffset != nil, !message.verifyFingerprint(bytes) { return .drop(.badIntegrity) }
        guard message.verifyMessageIntegrity(bytes, key: credentials.key) else { return .drop(.badIntegrity) }
        if !message.unknownComprehensionRequired.isEmpty {
            return .errorResponse(STUNMessageBuilder.bindingErrorResponse(
                transactionID: message.transactionID, error: .unknownAttribute,
                unknownAttributes: message.unknownComprehensionRequired, key: credentials.key))
        }
        if use == .renewed {
            retiring = (current, now + Self.restartOverlap)
            current = credentials
            pending = nil
        }

        var isNew = false
        if !validAddresses.contains(source) {
            isNew = true
            if validAddresses.count == Self.maxValidAddresses { validAddresses.removeFirst() }
            validAddresses.append(source)
        }
        lastConsent = now
        hasValidCheck = true
        let response = STUNMessageBuilder.bindingSuccessResponse(
            transactionID: message.transactionID, mappedAddress: source.transportAddress, key: credentials.key)
        return .success(response: response, isNewAddress: isNew, useCandidate: message.useCandidate, credentials: use)
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

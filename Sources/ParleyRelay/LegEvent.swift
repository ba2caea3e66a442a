/// Something that happened to a leg, delivered on ``MediaRelay/events``.
public struct LegEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// ICE nominated a pair and DTLS exported keys (RFC 5764 §4.2): media can flow.
        case connected(srtpProfile: String)
        /// The first media packet from this leg went on to its partner.
        case mediaFlowing
        /// The DTLS handshake or SRTP setup failed; the leg carries no more media.
        case failed(reason: String)
        /// The client sent close_notify (RFC 5246 §7.2.1): it hung up or closed its peer connection.
        case closed
        /// No valid connectivity check for the consent timeout (RFC 7675 §5.1), or ICE never
        /// completed within it.
        case dead
    }

    public var leg: LegID
    /// The tag given to ``MediaRelay/createLeg(offer:owner:)`` (e.g. the call id).
    public var owner: String
    public var kind: Kind
}

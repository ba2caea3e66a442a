import ParleyCore

/// Identifies one leg of the relay: one WebRTC peer connection between a client device and the
/// relay, with its own ICE credentials, DTLS endpoint and SRTP sessions.
public struct LegID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

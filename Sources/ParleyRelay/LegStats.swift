/// One leg's counters at a moment, as ``MediaRelay/stats(for:)`` returns them.
public struct LegStats: Sendable, Hashable {
    public var leg: LegID
    public var owner: String
    public var state: LegState
    /// SRTP/SRTCP packets that authenticated, and their bytes (as received, tag included).
    public var packetsIn: UInt64 = 0
    public var bytesIn: UInt64 = 0
    /// SRTP/SRTCP sent to this leg, and their bytes.
    public var packetsOut: UInt64 = 0
    public var bytesOut: UInt64 = 0
    /// SRTP/SRTCP from this leg's address that failed authentication or the replay check.
    public var decryptFailures: UInt64 = 0
    /// How long ago the last datagram of any kind arrived from the leg (nil: none yet).
    public var idleFor: Duration?
    /// The SRTP profile DTLS agreed, once connected.
    public var srtpProfile: String?
    /// Where media to the leg goes (``MediaPath``: nominated and proved), once chosen.
    public var sendAddress: PeerAddress?
    /// Times that address changed after the first, and ICE restarts answered for the leg.
    public var addressSwitches: UInt64 = 0
    public var iceRestarts: UInt64 = 0
    /// RFC 3550 reception estimates for the audio and video the leg sends, if any.
    public var audio: StreamStats?
    public var video: StreamStats?

    /// Reception estimates for one incoming RTP stream (RFC 3550 §6.4.1, Appendix A).
    public struct StreamStats: Sendable, Hashable {
        public var ssrc: UInt32
        public var received: UInt64
        public var expected: UInt64
        public var cumulativeLost: Int64
        /// Interarrival jitter in milliseconds.
        public var jitterMilliseconds: Double
    }
}

/// Where a leg stands.
public enum LegState: String, Sendable, Hashable {
    /// Waiting for a valid connectivity check (RFC 8445 §7.3).
    case waitingForICE = "waiting_for_ice"
    /// ICE succeeded; DTLS handshake running (RFC 5764).
    case handshaking
    /// Keys exported; media flows.
    case connected
    /// DTLS or SRTP setup failed.
    case failed
    /// The client closed DTLS (close_notify).
    case closed
    /// Consent expired (RFC 7675 §5.1) or ICE never completed.
    case dead
}

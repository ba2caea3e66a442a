/// What the relay brings to an answer: its ICE-lite credentials, DTLS fingerprint, the one
/// address and port it listens on, and what it sends in each media section.
public struct SDPRelayParameters: Sendable, Hashable {
    /// The relay's `a=ice-ufrag` for this leg (RFC 8839 §5.4: 4–256 ice-chars).
    public var iceUfrag: String
    /// The relay's `a=ice-pwd` for this leg (22–256 ice-chars).
    public var icePwd: String
    /// The SHA-256 fingerprint of the relay's DTLS certificate, "AB:CD:…" (RFC 8122 §5).
    public var fingerprintSHA256: String
    /// The announced IP address (IPv4 or IPv6 text): a host candidate and the `c=` line.
    public var address: String
    /// More announced addresses (e.g. the IPv6 one beside an IPv4 ``address``): a host candidate
    /// each, on the same port, at a lower priority in the order given.
    public var otherAddresses: [String]
    /// The UDP port the relay's media socket listens on.
    public var port: Int
    /// The TCP port for ICE over TCP (RFC 6544): a passive host candidate per address, below
    /// the UDP ones. Nil: none.
    public var tcpPort: Int?
    /// Whether the UDP host candidates are written (false only in tests of TCP alone).
    public var udpCandidates: Bool
    /// Per mid, the stream the relay will send in that section. Sections without an entry
    /// get no `a=ssrc`/`a=msid` lines.
    public var streams: [String: SDPRelayStream]
    /// URIs of the RTP header extensions the relay can forward (RFC 8285 §5).
    public var supportedHeaderExtensions: Set<String>
    /// `o=` session id (RFC 8866 §5.2); keep it per leg.
    public var sessionID: UInt64
    /// `o=` session version; raise it on every new answer for the same leg.
    public var sessionVersion: UInt64
    /// The msid stream id the relay's tracks belong to (RFC 8830).
    public var mediaStreamID: String
    /// The relay's DTLS role when the offer leaves it to the answerer (`actpass`, or no
    /// `a=setup`): passive for a new leg; an ICE restart answers with the role the leg already
    /// has, since the DTLS association stays (RFC 8842 §5.5).
    public var preferredSetup: SDPSetupRole = .passive
    /// Whether video keeps RTX (RFC 4588) when offered: the offer's `rtx` format whose `apt` is
    /// the chosen VP8, and the relay's RTX SSRC (``SDPRelayStream/rtxSSRC``) paired with its
    /// stream in `a=ssrc-group:FID` (RFC 5576 §4.2, RFC 4588 §8.1).
    public var retransmissions: Bool = false

    public init(iceUfrag: String, icePwd: String, fingerprintSHA256: String, address: String,
                otherAddresses: [String] = [], port: Int, tcpPort: Int? = nil, udpCandidates: Bool = true,
                streams: [String: SDPRelayStream] = [:],
                supportedHeaderExtensions: Set<String> = SDPRelayParameters.defaultHeaderExtensions,
                sessionID: UInt64 = 1, sessionVersion: UInt64 = 1, mediaStreamID: String = "parley") {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprintSHA256 = fingerprintSHA256
        self.address = address
        self.otherAddresses = otherAddresses
        self.port = port
        self.tcpPort = tcpPort
        self.udpCandidates = udpCandidates
        self.streams = streams
        self.supportedHeaderExtensions = supportedHeaderExtensions
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.mediaStreamID = mediaStreamID
    }

    /// Header extension URIs.
    public enum HeaderExtension {
        public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
        public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
        public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
        public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    }

    /// mid, audio level, abs-send-time and transport-wide-cc: the extensions a forwarding SFU
    /// can pass on with only their ids rewritten.
    public static let defaultHeaderExtensions: Set<String> = [
        HeaderExtension.mid, HeaderExtension.audioLevel, HeaderExtension.absSendTime, HeaderExtension.transportWideCC,
    ]
}

/// The stream the relay sends in one media section: its SSRC and CNAME (RFC 5576 §4.1,
/// RFC 7022) and the msid track id (RFC 8830).
public struct SDPRelayStream: Sendable, Hashable {
    public var ssrc: UInt32
    public var cname: String
    public var trackID: String
    /// The SSRC of the relay's RTX stream for this one (RFC 4588 §4), announced when RTX is
    /// negotiated.
    public var rtxSSRC: UInt32?

    public init(ssrc: UInt32, cname: String, trackID: String, rtxSSRC: UInt32? = nil) {
        self.ssrc = ssrc
        self.cname = cname
        self.trackID = trackID
        self.rtxSSRC = rtxSSRC
    }
}

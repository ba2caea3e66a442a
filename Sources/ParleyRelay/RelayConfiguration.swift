/// Where and how the relay runs.
public struct RelayConfiguration: Sendable, Hashable {
    /// The address the UDP socket binds to.
    public var host: String
    /// The UDP port; 0 picks a free one (tests), read it back from ``MediaRelay/port``.
    public var port: Int
    /// The address written into the answer's host candidate and `c=` line: the public address
    /// clients reach the relay on. `nil` uses ``host`` unless that is a wildcard, then 127.0.0.1.
    public var announcedAddress: String?
    /// No valid connectivity check for this long and the leg is dead (RFC 7675 §5.1: 30 s).
    public var consentTimeout: Duration
    /// How often timers (DTLS retransmission, consent) are looked at.
    public var timerInterval: Duration
    /// Datagrams read per `recvmmsg` call.
    public var vectorReadCount: Int
    /// Largest datagram accepted, in bytes.
    public var maxDatagramSize: Int

    public init(host: String = "0.0.0.0", port: Int = 50000, announcedAddress: String? = nil,
                consentTimeout: Duration = .seconds(30), timerInterval: Duration = .milliseconds(50),
                vectorReadCount: Int = 32, maxDatagramSize: Int = 2048) {
        self.host = host
        self.port = port
        self.announcedAddress = announcedAddress
        self.consentTimeout = consentTimeout
        self.timerInterval = timerInterval
        self.vectorReadCount = vectorReadCount
        self.maxDatagramSize = maxDatagramSize
    }

    /// The address the SDP answer announces.
    public var effectiveAnnouncedAddress: String {
        if let announcedAddress { return announcedAddress }
        return host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
    }
}

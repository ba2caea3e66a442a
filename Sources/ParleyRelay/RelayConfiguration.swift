/// Where and how the relay runs.
public struct RelayConfiguration: Sendable, Hashable {
    /// The address the UDP socket binds to.
    public var host: String
    /// The UDP port; 0 picks a free one (tests), read it back from ``MediaRelay/port``.
    public var port: Int
    /// The addresses written into the answer as host candidates, the first also in the `c=` line:
    /// the public addresses clients reach the relay on, IPv4 and IPv6 alike (an IPv6-only phone
    /// takes the IPv6 one). Empty uses ``host`` unless that is a wildcard, then 127.0.0.1.
    public var announcedAddresses: [String]
    /// The one-address shorthand of ``announcedAddresses``.
    public var announcedAddress: String? {
        get { announcedAddresses.first }
        set { announcedAddresses = newValue.map { [$0] } ?? [] }
    }
    /// No valid connectivity check for this long and the leg is dead (RFC 7675 §5.1: 30 s).
    public var consentTimeout: Duration
    /// How often timers (DTLS retransmission, consent) are looked at.
    public var timerInterval: Duration
    /// Datagrams read per `recvmmsg` call.
    public var vectorReadCount: Int
    /// Largest datagram accepted, in bytes.
    public var maxDatagramSize: Int
    /// Legs this node holds at most (two per call, one per echo test); more are refused `relay_full`.
    public var maxLegs: Int
    /// Distinct SSRCs a leg's client may send RTP with over the leg's life (audio and video
    /// together, a changed SSRC counting anew); RTP with a further new one is dropped `ssrc_limit`.
    public var maxSSRCsPerLeg: Int
    /// The TCP port for ICE over TCP (RFC 6544 passive candidates, RFC 4571 framing), for clients
    /// whose UDP is blocked. Nil: the same number as the UDP port (the bound one when ``port`` is
    /// 0, or any free one if that number is taken); 0: no TCP.
    public var tcpPort: Int?
    /// Whether the answer carries the UDP host candidates. Always true in service; false lets a
    /// test prove that a client connects over TCP alone.
    public var udpCandidates: Bool
    /// TCP connections that have not yet sent a valid connectivity check, at most; more are
    /// closed as they arrive.
    public var tcpPendingLimit: Int
    /// How long a TCP connection has to send its first valid connectivity check.
    public var tcpFirstCheckTimeout: Duration
    /// Bytes queued for one TCP connection but not yet taken by the kernel, at most: past it
    /// packets to that connection are dropped (`tcp_send_buffer_full`), never waited for.
    public var tcpSendBufferBytes: Int
    /// Whether answers keep RTX for VP8 when a client offers it (RFC 4588): retransmissions then
    /// travel on their own stream, the relay rewriting or unwrapping them per receiver.
    public var retransmissions: Bool = true
    /// Tests only: every n-th video packet the relay receives (`inbound`) or is about to send
    /// (`outbound`, after keeping it for NACKs) is dropped, so real clients see loss and repair
    /// it. 0: none (always in service).
    public var testVideoLossInbound: Int = 0
    public var testVideoLossOutbound: Int = 0

    public init(host: String = "0.0.0.0", port: Int = 50000, announcedAddress: String? = nil,
                announcedAddresses: [String] = [],
                consentTimeout: Duration = .seconds(30), timerInterval: Duration = .milliseconds(50),
                vectorReadCount: Int = 32, maxDatagramSize: Int = 2048, maxLegs: Int = 4000, maxSSRCsPerLeg: Int = 8,
                tcpPort: Int? = nil, udpCandidates: Bool = true, tcpPendingLimit: Int = 256,
                tcpFirstCheckTimeout: Duration = .seconds(5), tcpSendBufferBytes: Int = 256 << 10) {
        self.host = host
        self.port = port
        var addresses: [String] = []
        if let announcedAddress { addresses.append(announcedAddress) }
        for address in announcedAddresses where !addresses.contains(address) { addresses.append(address) }
        self.announcedAddresses = addresses
        self.consentTimeout = consentTimeout
        self.timerInterval = timerInterval
        self.vectorReadCount = vectorReadCount
        self.maxDatagramSize = maxDatagramSize
        self.maxLegs = maxLegs
        self.maxSSRCsPerLeg = maxSSRCsPerLeg
        self.tcpPort = tcpPort
        self.udpCandidates = udpCandidates
        self.tcpPendingLimit = tcpPendingLimit
        self.tcpFirstCheckTimeout = tcpFirstCheckTimeout
        self.tcpSendBufferBytes = tcpSendBufferBytes
    }

    /// The addresses the SDP answer announces, first the one for its `c=` line.
    public var effectiveAnnouncedAddresses: [String] {
        if !announcedAddresses.isEmpty { return announcedAddresses }
        return [host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host]
    }

    /// The address of the answer's `c=` line.
    public var effectiveAnnouncedAddress: String { effectiveAnnouncedAddresses[0] }
}

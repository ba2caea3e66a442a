/// The local half of a call: the ids a ``MediaClient`` puts in its offer and stamps on its RTP.
public struct MediaOffer: Sendable {
    public let audioSSRC: UInt32
    public let videoSSRC: UInt32
    public let audioPayloadType: UInt8
    public let videoPayloadType: UInt8
    public let mids: (audio: String, video: String)
    public let midExtensionID: UInt8
    /// The abs-send-time extension id, or 0 when not offered.
    public let absSendTimeExtensionID: UInt8
    /// ICE credentials (RFC 8445 §5.3).
    public let ufrag: String
    public let password: String
    /// `sha-256 AB:CD:…`, the DTLS certificate's fingerprint (RFC 8122 §5).
    public let fingerprint: String
    public let cname: String

    init(configuration: MediaClientConfiguration, fingerprint: String) {
        audioSSRC = UInt32.random(in: 1...UInt32.max)
        var video = UInt32.random(in: 1...UInt32.max)
        while video == audioSSRC { video = UInt32.random(in: 1...UInt32.max) }
        videoSSRC = video
        audioPayloadType = configuration.audioPayloadType
        videoPayloadType = configuration.videoPayloadType
        mids = configuration.mids
        midExtensionID = configuration.midExtensionID
        absSendTimeExtensionID = configuration.absSendTimeExtensionID
        ufrag = RandomICEString.make(length: 8)
        password = RandomICEString.make(length: 24)
        self.fingerprint = fingerprint
        cname = configuration.cname
    }

    /// A BUNDLE offer like a browser's (RFC 8829 §5.2): Opus, and VP8 with NACK and an RTX format
    /// the answerer may leave out (if kept, resends arrive on the answer's RTX stream); rtcp-mux,
    /// the mid and abs-send-time extensions (RFC 8285 §5),
    /// `a=setup:actpass` (RFC 5763 §5), one host candidate at `host:port` — over TCP an active
    /// one (RFC 6544 §4.5: port 9, it connects rather than listens).
    public func sdp(host: String, port: Int, transport: MediaTransport = .udp) -> String {
        let header = "v=0\r\no=- \(UInt32.random(in: 1...UInt32.max)) 1 IN IP4 \(host)\r\ns=-\r\nt=0 0\r\n"
            + "a=group:BUNDLE \(mids.audio) \(mids.video)\r\n"
        return header
            + section(kind: "audio", payloadType: audioPayloadType, codec: "opus/48000/2", mid: mids.audio,
                      ssrc: audioSSRC, host: host, port: port, transport: transport, extra: "")
            + section(kind: "video", payloadType: videoPayloadType, codec: "VP8/90000", mid: mids.video,
                      ssrc: videoSSRC, host: host, port: port, transport: transport,
                      extra: "a=rtcp-fb:\(videoPayloadType) nack\r\na=rtcp-fb:\(videoPayloadType) nack pli\r\na=rtcp-fb:\(videoPayloadType) ccm fir\r\n"
                          + "a=rtpmap:\(videoPayloadType &+ 1) rtx/90000\r\na=fmtp:\(videoPayloadType &+ 1) apt=\(videoPayloadType)\r\n")
    }

    private func section(kind: String, payloadType: UInt8, codec: String, mid: String, ssrc: UInt32,
                         host: String, port: Int, transport: MediaTransport, extra: String) -> String {
        let formats = kind == "video" ? "\(payloadType) \(payloadType &+ 1)" : "\(payloadType)"
        return "m=\(kind) \(port) UDP/TLS/RTP/SAVPF \(formats)\r\n"
            + "c=IN IP4 \(host)\r\n"
            + "a=mid:\(mid)\r\n"
            + "a=sendrecv\r\n"
            + "a=rtcp-mux\r\n"
            + "a=extmap:\(midExtensionID) urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
            + (absSendTimeExtensionID == 0 ? "" : "a=extmap:\(absSendTimeExtensionID) \(AbsSendTime.uri)\r\n")
            + "a=ice-ufrag:\(ufrag)\r\n"
            + "a=ice-pwd:\(password)\r\n"
            + "a=fingerprint:\(fingerprint)\r\n"
            + "a=setup:actpass\r\n"
            + "a=rtpmap:\(payloadType) \(codec)\r\n"
            + extra
            + "a=ssrc:\(ssrc) cname:\(cname)\r\n"
            + (transport == .udp ? "a=candidate:1 1 udp 2130706431 \(host) \(port) typ host\r\n"
                                 : "a=candidate:1 1 tcp 1518280447 \(host) \(port) typ host tcptype active\r\n")
    }
}

import ParleyDTLS
import ParleySDP

/// What a ``MediaClient`` needs from the answer: where and how to reach the peer (ICE
/// credentials, the first host candidate of the client's transport, the DTLS fingerprint) and its payload types and SSRCs.
public struct RemoteAnswer: Sendable {
    public let iceUfrag: String
    public let icePassword: String
    public let fingerprint: DTLSFingerprint
    public let host: String
    public let port: Int
    /// Payload types the answer kept for audio and video (the first format of each section).
    public let audioPayloadType: UInt8?
    public let videoPayloadType: UInt8?
    /// The RTX payload type the answer kept for video (`apt=` its VP8, RFC 4588 §8.6), if any:
    /// retransmissions then arrive under it, on their own SSRC.
    public let videoRTXPayloadType: UInt8?
    /// The SSRCs the answerer will send from, per its `a=ssrc` lines (RFC 5576), if any.
    public let audioSSRC: UInt32?
    public let videoSSRC: UInt32?
    /// The id the answer kept for abs-send-time (`a=extmap`, RFC 8285 §5), if it kept it: what
    /// arriving packets carry it under. BUNDLE gives a URI one id in every section (RFC 8843 §9.2).
    public let absSendTimeExtensionID: UInt8?

    /// Parses an answer to `offer`; sections are matched by mid.
    /// `ipv6`: the client's socket is IPv6, so it takes the answer's IPv6 candidate where there is one.
    /// `transport`: UDP takes a UDP candidate, TCP a passive TCP one (RFC 6544 §4.5).
    public init(sdp: String, offer: MediaOffer, ipv6: Bool = false, transport: MediaTransport = .udp) throws(MediaClientError) {
        let session: SessionDescription
        do { session = try SessionDescription(parsing: sdp) } catch { throw .badAnswer("unparseable: \(error)") }
        guard let media = session.media.first(where: { $0.port != 0 }) else { throw .badAnswer("no accepted section") }
        guard let ufrag = media.iceUfrag ?? session.iceUfrag, let password = media.icePwd ?? session.icePwd else {
            throw .badAnswer("no ICE credentials")
        }
        let fingerprints = media.fingerprints.isEmpty ? session.fingerprints : media.fingerprints
        guard let fingerprint = fingerprints.lazy.compactMap({ DTLSFingerprint(sdp: $0.attributeValue) }).first else {
            throw .badAnswer("no usable a=fingerprint")
        }
        // The relay announces a host candidate per address family it is reached on; take the
        // first of the family this client's socket has.
        let candidates = media.attributes.filter { $0.name == "candidate" }
            .compactMap { $0.value.flatMap(SDPCandidate.init) }.filter { $0.component == 1 }
            .filter { transport == .udp ? $0.transport == "udp"
                                        : $0.transport == "tcp" && $0.extensions.contains { $0.name == "tcptype" && $0.value == "passive" } }
        guard let candidate = candidates.first(where: { $0.address.contains(":") == ipv6 }) ?? candidates.first
        else { throw .badAnswer("no \(transport.rawValue) candidate") }
        iceUfrag = ufrag
        icePassword = password
        self.fingerprint = fingerprint
        host = candidate.address
        port = candidate.port
        let audio = session.media.first { $0.mid == offer.mids.audio && $0.port != 0 }
        let video = session.media.first { $0.mid == offer.mids.video && $0.port != 0 }
        audioPayloadType = audio?.payloadTypes.first
        videoPayloadType = video?.payloadTypes.first
        videoRTXPayloadType = video.flatMap { section in
            section.payloadTypes.first { format in
                section.rtpMap(for: format)?.encodingName.lowercased() == "rtx"
                    && section.formatParameters(for: format)?["apt"] == section.payloadTypes.first.map(String.init)
            }
        }
        audioSSRC = audio.flatMap(Self.firstSSRC)
        videoSSRC = video.flatMap(Self.firstSSRC)
        absSendTimeExtensionID = [audio, video].lazy.compactMap { $0?.extMaps.first { $0.uri == AbsSendTime.uri }?.id }
            .first { (1...14).contains($0) }
    }

    private static func firstSSRC(_ media: MediaDescription) -> UInt32? {
        media.attributes.lazy.filter { $0.name == "ssrc" }.compactMap { $0.value.flatMap(SDPSSRCAttribute.init)?.ssrc }.first
    }
}

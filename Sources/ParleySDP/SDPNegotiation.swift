/// What an answer agreed to, per media section, for the relay to configure a leg with.
public struct SDPNegotiation: Sendable, Hashable {
    /// Every offered section, in m-line order, accepted or not.
    public var media: [NegotiatedMedia]
    /// The mids in the answer's BUNDLE group (RFC 8843), in order; empty without BUNDLE.
    public var bundleMids: [String]

    /// The accepted sections only.
    public var accepted: [NegotiatedMedia] { media.filter(\.isAccepted) }

    /// The section with `mid`.
    public func media(mid: String) -> NegotiatedMedia? { media.first { $0.mid == mid } }
}

/// The outcome for one media section.
public struct NegotiatedMedia: Sendable, Hashable {
    /// Position of the m-line in the offer (and the answer).
    public var index: Int
    /// `a=mid`, when the offer gave one.
    public var mid: String?
    public var kind: SDPMediaKind
    /// Why the section was answered with port 0; nil when accepted.
    public var rejection: SDPRejection?
    /// The one codec kept (Opus or VP8); nil when rejected.
    public var codec: NegotiatedCodec?
    /// Header extensions both sides support, with the offer's ids (RFC 8285 §6).
    public var headerExtensions: [SDPExtMap]
    /// The offer's `a=ssrc` SSRCs, in order of appearance.
    public var remoteSSRCs: [UInt32]
    /// The offer's `a=ssrc-group` lines (e.g. FID pairing a stream with its RTX stream).
    public var remoteSSRCGroups: [SDPSSRCGroup]
    /// The CNAME the offer gave for its first SSRC.
    public var remoteCNAME: String?
    /// The offer's direction and the answer's (its mirror, RFC 3264 §6.1).
    public var remoteDirection: SDPDirection
    public var localDirection: SDPDirection
    /// The client's ICE credentials (media level, else session level).
    public var remoteICEUfrag: String?
    public var remoteICEPwd: String?
    /// The client's certificate fingerprints; ``remoteFingerprint`` picks the one to check.
    public var remoteFingerprints: [SDPFingerprint]
    /// The client's `a=setup` and the relay's: passive, the relay is the DTLS server; active,
    /// it is the client (RFC 5763 §5).
    public var remoteSetup: SDPSetupRole?
    public var localSetup: SDPSetupRole
    /// The relay's stream in this section, if it sends one.
    public var localStream: SDPRelayStream?

    public var isAccepted: Bool { rejection == nil }

    /// The payload type to use on this leg.
    public var payloadType: UInt8? { codec?.payloadType }
    /// The RTP clock rate of the codec.
    public var clockRate: Int? { codec?.clockRate }

    /// The primary SSRC: the first SSRC of a FID group, else the first `a=ssrc`.
    public var remotePrimarySSRC: UInt32? {
        remoteSSRCGroups.first { $0.semantics == "FID" }?.ssrcs.first ?? remoteSSRCs.first
    }

    /// The id negotiated for the header extension `uri`.
    public func extensionID(for uri: String) -> UInt8? {
        headerExtensions.first { $0.uri == uri }?.id
    }

    /// Hash functions in the order a fingerprint is picked (RFC 8122 §5): SHA-256, which every
    /// WebRTC stack offers (RFC 8827 §6.5), then the stronger ones, then SHA-224 and SHA-1, which
    /// older stacks with RSA certificates still send.
    public static let fingerprintPreference = ["sha-256", "sha-384", "sha-512", "sha-224", "sha-1"]

    /// The fingerprint the DTLS handshake should be checked against: the first offered in
    /// ``fingerprintPreference`` order, else the first (which DTLS will refuse to use).
    public var remoteFingerprint: SDPFingerprint? {
        for algorithm in Self.fingerprintPreference {
            if let match = remoteFingerprints.first(where: { $0.algorithm == algorithm }) { return match }
        }
        return remoteFingerprints.first
    }
}

/// The codec chosen for a section.
public struct NegotiatedCodec: Sendable, Hashable {
    public var payloadType: UInt8
    public var name: String
    public var clockRate: Int
    public var channels: Int?
    /// The offer's `a=fmtp` parameters for it, echoed in the answer.
    public var formatParameters: String?
    /// The `a=rtcp-fb` kinds kept, e.g. "nack", "nack pli", "ccm fir", "transport-cc".
    public var rtcpFeedback: [String]
    /// The offer's `rtx/90000` payload type with `apt=` this codec (RFC 4588 §8.6), when kept;
    /// the same in both directions, as for the codec.
    public var rtxPayloadType: UInt8? = nil
}

/// Why a section was not accepted.
public enum SDPRejection: Sendable, Hashable {
    /// Not audio or video (e.g. a data channel).
    case unsupportedMediaKind
    /// Not UDP/TLS/RTP/SAVPF (RFC 8829 §5.1.2).
    case unsupportedProtocol
    /// No Opus (audio) or VP8 (video) among the offered formats.
    case noSupportedCodec
    /// The offer itself rejected it (port 0 without `a=bundle-only` in a BUNDLE group).
    case rejectedInOffer
    /// Without `a=rtcp-mux` the relay cannot take RTCP on its single port (RFC 8843 §9).
    case missingRTCPMux
    /// Without `a=mid` the section cannot be bundled or demultiplexed (RFC 8843).
    case missingMid
}

/// Why no answer could be made at all.
public enum SDPAnswerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not one section could be accepted.
    case noAcceptableMedia
    /// An accepted section has no ICE ufrag/pwd at media or session level.
    case missingICECredentials(mid: String)
    /// An accepted section has no DTLS fingerprint (RFC 8842 §5.2).
    case missingFingerprint(mid: String)
    /// The offer says `a=setup:holdconn`: no connection (RFC 4145 §4).
    case unsupportedSetup(mid: String, role: SDPSetupRole)

    public var description: String {
        switch self {
        case .noAcceptableMedia: return "no media section with Opus or VP8 over UDP/TLS/RTP/SAVPF and rtcp-mux"
        case .missingICECredentials(let mid): return "media section \(mid) has no ice-ufrag/ice-pwd"
        case .missingFingerprint(let mid): return "media section \(mid) has no a=fingerprint"
        case .unsupportedSetup(let mid, let role): return "media section \(mid) offers a=setup:\(role.rawValue), which sets up no connection"
        }
    }
}

/// An answer to a WebRTC offer, and what it agreed to.
public struct SDPAnswer: Sendable, Hashable {
    /// The answer as a value; ``sdp`` is its text.
    public var session: SessionDescription
    /// Per-section summary for configuring the relay's leg.
    public var negotiation: SDPNegotiation

    /// The answer's SDP text (CRLF line ends).
    public var sdp: String { session.text }
}

/// Answers WebRTC offers as an ICE-lite, BUNDLE-only relay that forwards Opus and VP8 (JSEP,
/// RFC 8829 §5.3; RFC 3264 §6).
///
/// Each audio or video section over UDP/TLS/RTP/SAVPF with rtcp-mux and a mid is accepted
/// with one codec — Opus for audio, VP8 for video, with the offer's payload type and fmtp —
/// plus, for VP8 and when ``SDPRelayParameters/retransmissions`` allows, the offer's RTX format
/// paired with it (RFC 4588 §8.6); everything else in it (RED, ULPFEC, H264, VP9, AV1, G.711,
/// RTX of other codecs, …) is left out. Other
/// sections are answered with port 0, their mid, and kept out of BUNDLE.
///
/// A max-bundle offer's `a=bundle-only` sections (port 0, RFC 8843 §7.2.1) are accepted into
/// the bundle; a section that leaves out transport attributes (ICE credentials, fingerprint,
/// setup) shares those of the offerer-tagged section, the first of the BUNDLE group (§7.2).
/// Every accepted section of the answer carries the full transport description, as JSEP answers
/// do, so a stack that reads them per section finds them.
///
/// DTLS role (RFC 5763 §5, RFC 8842 §5.3): the relay answers `passive` to `actpass` or `active`
/// (it is the DTLS server), and `active` to `passive` (it is the client).
public enum SDPAnswerer {
    /// Feedback kept for VP8 when offered (RFC 4585 §4.2, RFC 5104 §7.1).
    static let videoFeedback: Set<String> = ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"]
    /// Feedback kept for Opus when offered.
    static let audioFeedback: Set<String> = ["transport-cc"]

    /// Builds the answer to `offer` for a relay described by `relay`.
    public static func answer(offer: SessionDescription, relay: SDPRelayParameters) throws(SDPAnswerError) -> SDPAnswer {
        let offeredBundle = offer.bundleMids ?? []
        // The offerer-tagged section (RFC 8843 §7.2.1): the first mid of the group.
        let tagged = offeredBundle.first.flatMap { mid in offer.media.first { $0.mid == mid } }
        var negotiated: [NegotiatedMedia] = []
        for (index, section) in offer.media.enumerated() {
            let transport = section.mid.map(offeredBundle.contains) == true ? tagged : nil
            negotiated.append(try negotiate(section, index: index, offer: offer, bundleTransport: transport,
                                            offeredBundle: offeredBundle, relay: relay))
        }
        guard let first = negotiated.first(where: \.isAccepted) else { throw .noAcceptableMedia }
        // One transport per leg, so one DTLS role: the first accepted section's.
        for index in negotiated.indices where negotiated[index].isAccepted {
            negotiated[index].localSetup = first.localSetup
        }

        let bundle = negotiated.compactMap { $0.isAccepted ? $0.mid : nil }.filter(offeredBundle.contains)

        var answer = SessionDescription(origin: SDPOrigin(
            sessionID: String(relay.sessionID), sessionVersion: String(relay.sessionVersion),
            addressType: relay.address.contains(":") ? "IP6" : "IP4", address: relay.address))
        answer.attributes.append(SDPAttribute("ice-lite"))
        if !bundle.isEmpty {
            answer.attributes.append(SDPAttribute("group", SDPGroup(semantics: "BUNDLE", mids: bundle).value))
        }
        answer.attributes.append(SDPAttribute("msid-semantic", "WMS \(relay.mediaStreamID)"))
        for (section, media) in zip(offer.media, negotiated) {
            answer.media.append(media.isAccepted
                ? acceptedSection(section, media, relay: relay)
                : rejectedSection(section, media))
        }
        return SDPAnswer(session: answer, negotiation: SDPNegotiation(media: negotiated, bundleMids: bundle))
    }

    /// Decides one section: codec, feedback, extensions, direction, credentials. A bundled
    /// section without its own transport attributes takes `bundleTransport`'s, then the session's.
    static func negotiate(_ section: MediaDescription, index: Int, offer: SessionDescription,
                          bundleTransport: MediaDescription?, offeredBundle: [String],
                          relay: SDPRelayParameters) throws(SDPAnswerError) -> NegotiatedMedia {
        let remoteDirection = section.direction
        let fingerprints = [section.fingerprints, bundleTransport?.fingerprints ?? [], offer.fingerprints]
            .first { !$0.isEmpty } ?? []
        let remoteSetup = section.setup ?? bundleTransport?.setup ?? offer.setup
        var media = NegotiatedMedia(
            index: index, mid: section.mid, kind: section.kind, rejection: nil, codec: nil, headerExtensions: [],
            remoteSSRCs: section.ssrcs, remoteSSRCGroups: section.ssrcGroups,
            remoteCNAME: section.ssrcs.first.flatMap(section.cname(for:)),
            remoteDirection: remoteDirection, localDirection: .inactive,
            remoteICEUfrag: section.iceUfrag ?? bundleTransport?.iceUfrag ?? offer.iceUfrag,
            remoteICEPwd: section.icePwd ?? bundleTransport?.icePwd ?? offer.icePwd,
            remoteFingerprints: fingerprints, remoteSetup: remoteSetup, localSetup: .passive,
            localStream: nil)

        if let rejection = rejection(of: section, offeredBundle: offeredBundle) {
            media.rejection = rejection
            return media
        }
        guard let codec = chooseCodec(section) else {
            media.rejection = .noSupportedCodec
            return media
        }
        let mid = section.mid ?? ""
        guard media.remoteICEUfrag != nil, media.remoteICEPwd != nil else { throw .missingICECredentials(mid: mid) }
        guard !fingerprints.isEmpty else { throw .missingFingerprint(mid: mid) }
        media.localSetup = try localSetup(answering: remoteSetup, preferred: relay.preferredSetup, mid: mid)

        // Only extensions both sides know, with the offer's ids; ids above 14 would need
        // two-byte headers, which this answer does not allow (no extmap-allow-mixed).
        media.headerExtensions = section.extMaps
            .filter { relay.supportedHeaderExtensions.contains($0.uri) && $0.id <= 14 }
            .map { SDPExtMap(id: $0.id, uri: $0.uri) }
        let hasTransportCC = media.headerExtensions.contains { $0.uri == SDPRelayParameters.HeaderExtension.transportWideCC }

        let allowed = section.kind == .audio ? audioFeedback : videoFeedback
        var feedback: [String] = []
        for item in section.rtcpFeedback(for: codec.payloadType) {
            let kind = item.feedback.lowercased()
            guard allowed.contains(kind), !feedback.contains(kind) else { continue }
            if kind == "transport-cc" && !hasTransportCC { continue }
            feedback.append(kind)
        }

        media.codec = NegotiatedCodec(
            payloadType: codec.payloadType, name: codec.encodingName, clockRate: codec.clockRate, channels: codec.channels,
            formatParameters: section.formatParameters(for: codec.payloadType)?.parameters, rtcpFeedback: feedback,
            rtxPayloadType: section.kind == .video && relay.retransmissions && feedback.contains("nack")
                ? rtxPayloadType(section, associatedWith: codec.payloadType) : nil)
        media.localDirection = remoteDirection.reversed
        if media.localDirection.sends, let mid = section.mid { media.localStream = relay.streams[mid] }
        return media
    }

    /// The relay's `a=setup` in answer to the offer's (RFC 5763 §5, RFC 4145 §4.1): `preferred`
    /// (passive for a new leg, the leg's own role for an ICE restart, RFC 8842 §5.5) to `actpass`
    /// or none, passive to `active`, active to `passive`; `holdconn` asks for no connection at
    /// all, which a call cannot use.
    static func localSetup(answering remote: SDPSetupRole?, preferred: SDPSetupRole,
                           mid: String) throws(SDPAnswerError) -> SDPSetupRole {
        switch remote {
        case .actpass?, nil: return preferred
        case .active?: return .passive
        case .passive?: return .active
        case .holdconn?: throw .unsupportedSetup(mid: mid, role: .holdconn)
        }
    }

    /// Reasons to refuse a section before looking at codecs. Port 0 rejects a section unless it
    /// is `a=bundle-only` and in the offer's BUNDLE group (RFC 8843 §6, §7.2.1).
    static func rejection(of section: MediaDescription, offeredBundle: [String]) -> SDPRejection? {
        if section.port == 0 {
            guard section.bundleOnly, let mid = section.mid, offeredBundle.contains(mid) else { return .rejectedInOffer }
        }
        guard section.kind == .audio || section.kind == .video else { return .unsupportedMediaKind }
        guard section.proto.uppercased() == "UDP/TLS/RTP/SAVPF" else { return .unsupportedProtocol }
        guard section.mid != nil else { return .missingMid }
        guard section.rtcpMux else { return .missingRTCPMux }
        return nil
    }

    /// The first Opus/48000/2 (audio) or VP8/90000 (video) format in the offer's order.
    static func chooseCodec(_ section: MediaDescription) -> SDPRTPMap? {
        for payloadType in section.payloadTypes {
            guard let map = section.rtpMap(for: payloadType) else { continue }
            let name = map.encodingName.lowercased()
            switch section.kind {
            case .audio where name == "opus" && map.clockRate == 48000 && (map.channels ?? 2) == 2:
                return map
            case .video where name == "vp8" && map.clockRate == 90000:
                return map
            default:
                continue
            }
        }
        return nil
    }

    /// The offer's first `rtx/90000` format whose `a=fmtp` says `apt=<payloadType>` (RFC 4588
    /// §8.6); nil when there is none.
    static func rtxPayloadType(_ section: MediaDescription, associatedWith payloadType: UInt8) -> UInt8? {
        for format in section.payloadTypes where format != payloadType {
            guard let map = section.rtpMap(for: format), map.encodingName.lowercased() == "rtx", map.clockRate == 90000,
                  let apt = section.formatParameters(for: format)?["apt"], UInt8(apt) == payloadType else { continue }
            return format
        }
        return nil
    }

    /// The answer's lines for an accepted section.
    static func acceptedSection(_ offered: MediaDescription, _ media: NegotiatedMedia,
                                relay: SDPRelayParameters) -> MediaDescription {
        // negotiate() only accepts sections with a codec and a mid.
        let codec = media.codec ?? NegotiatedCodec(payloadType: 0, name: "", clockRate: 0, channels: nil,
                                                   formatParameters: nil, rtcpFeedback: [])
        let pt = codec.payloadType
        let formats = [pt] + (codec.rtxPayloadType.map { [$0] } ?? [])
        var section = MediaDescription(type: offered.type, port: relay.port, proto: offered.proto, formats: formats.map(String.init))
        section.connection = SDPConnection(address: relay.address)
        var attributes = candidates(relay).map { SDPAttribute("candidate", $0.value) }
        attributes += [
            SDPAttribute("end-of-candidates"),
            SDPAttribute("ice-ufrag", relay.iceUfrag),
            SDPAttribute("ice-pwd", relay.icePwd),
            SDPAttribute("fingerprint", SDPFingerprint(algorithm: "sha-256", value: relay.fingerprintSHA256).attributeValue),
            SDPAttribute("setup", media.localSetup.rawValue),
            SDPAttribute("mid", media.mid ?? ""),
        ]
        attributes += media.headerExtensions.map { SDPAttribute("extmap", $0.value) }
        attributes.append(SDPAttribute(media.localDirection.rawValue))
        if let stream = media.localStream {
            attributes.append(SDPAttribute("msid", SDPMediaStreamID(streamID: relay.mediaStreamID, trackID: stream.trackID).value))
        }
        attributes.append(SDPAttribute("rtcp-mux"))
        attributes.append(SDPAttribute("rtpmap", SDPRTPMap(payloadType: pt, encodingName: codec.name, clockRate: codec.clockRate,
                                                           channels: codec.channels).value))
        attributes += codec.rtcpFeedback.map { SDPAttribute("rtcp-fb", "\(pt) \($0)") }
        if let parameters = codec.formatParameters {
            attributes.append(SDPAttribute("fmtp", SDPFormatParameters(payloadType: pt, parameters: parameters).value))
        }
        if let rtx = codec.rtxPayloadType {
            attributes.append(SDPAttribute("rtpmap", SDPRTPMap(payloadType: rtx, encodingName: "rtx", clockRate: codec.clockRate).value))
            attributes.append(SDPAttribute("fmtp", SDPFormatParameters(payloadType: rtx, parameters: "apt=\(pt)").value))
        }
        if let stream = media.localStream {
            // The RTX stream is announced beside its media stream (RFC 5576 §4.2, RFC 4588 §8.1).
            let rtxSSRC = codec.rtxPayloadType == nil ? nil : stream.rtxSSRC
            if let rtxSSRC {
                attributes.append(SDPAttribute("ssrc-group", SDPSSRCGroup(semantics: "FID", ssrcs: [stream.ssrc, rtxSSRC]).value))
            }
            for ssrc in [stream.ssrc] + (rtxSSRC.map { [$0] } ?? []) {
                attributes.append(SDPAttribute("ssrc", SDPSSRCAttribute(ssrc: ssrc, attribute: "cname", value: stream.cname).valueText))
            }
        }
        section.attributes = attributes
        return section
    }

    /// A refused section: port 0, the offer's protocol and formats, its mid and nothing else —
    /// no transport attributes and no `a=bundle-only`, and it is left out of the BUNDLE group
    /// (RFC 3264 §6, RFC 8829 §5.3.1, RFC 8843 §7.3.3).
    static func rejectedSection(_ offered: MediaDescription, _ media: NegotiatedMedia) -> MediaDescription {
        var section = MediaDescription(type: offered.type, port: 0, proto: offered.proto,
                                       formats: offered.formats.isEmpty ? ["0"] : offered.formats)
        section.connection = SDPConnection(address: "0.0.0.0")
        if let mid = media.mid { section.attributes.append(SDPAttribute("mid", mid)) }
        return section
    }
}

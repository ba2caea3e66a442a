import NIOCore
import ParleyDTLS
import ParleySDP

/// Turns a client's offer into a leg and the relay's answer (JSEP, RFC 8829 §5.3, through
/// ``SDPAnswerer``): fresh ICE credentials (RFC 8839 §5.4), one SSRC per section the relay
/// sends in, and a DTLS endpoint that accepts only the offer's certificate (RFC 5763 §5): the
/// server, or the client when the offer says `a=setup:passive`.
struct LegFactory {
    let configuration: RelayConfiguration
    let port: Int
    /// The TCP port for passive candidates (RFC 6544); nil: none.
    var tcpPort: Int? = nil
    let dtlsContext: DTLSContext
    /// The client-role sibling of ``dtlsContext`` (same certificate), for passive peers; made
    /// on demand when not given.
    var dtlsClientContext: DTLSContext? = nil

    struct Setup {
        let leg: RelayLeg
        let answer: String
    }

    /// Characters allowed in ice-ufrag / ice-pwd (RFC 8839 §5.4 ice-char), minus `+` and `/`.
    static let iceAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func randomICEString(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in iceAlphabet.randomElement(using: &generator)! })
    }

    func makeLeg(id: LegID, offer: String, owner: String) throws(MediaRelayError) -> Setup {
        let session = try Self.parse(offer)
        var generator = SystemRandomNumberGenerator()
        var used: Set<UInt32> = [0]
        var streams: [String: SDPRelayStream] = [:]
        var localSSRCs: [String: UInt32] = [:]
        var localRTXSSRCs: [String: UInt32] = [:]
        let short = String(id.rawValue.prefix(8))
        for section in session.media {
            guard let kind = RelayMediaKind(section.kind), let mid = section.mid else { continue }
            var ssrc: UInt32 = 0
            while used.contains(ssrc) { ssrc = generator.next() }
            used.insert(ssrc)
            localSSRCs[mid] = ssrc
            var rtxSSRC: UInt32?
            if kind == .video {
                var value: UInt32 = 0
                while used.contains(value) { value = generator.next() }
                used.insert(value)
                rtxSSRC = value
                localRTXSSRCs[mid] = value
            }
            streams[mid] = SDPRelayStream(ssrc: ssrc, cname: "parley-\(short)",
                                          trackID: "\(kind == .audio ? "audio" : "video")-\(short)", rtxSSRC: rtxSSRC)
        }

        let fingerprint = dtlsContext.fingerprint.sdpValue
        let fingerprintHex = fingerprint.split(separator: " ").last.map(String.init) ?? ""
        var parameters = SDPRelayParameters(
            iceUfrag: Self.randomICEString(length: 8), icePwd: Self.randomICEString(length: 24),
            fingerprintSHA256: fingerprintHex, address: configuration.effectiveAnnouncedAddresses[0],
            otherAddresses: Array(configuration.effectiveAnnouncedAddresses.dropFirst()), port: port,
            tcpPort: tcpPort, udpCandidates: configuration.udpCandidates, streams: streams,
            sessionID: generator.next() >> 1, sessionVersion: 1, mediaStreamID: "parley-\(short)")
        parameters.retransmissions = configuration.retransmissions

        let (answer, first, remoteUfrag, remoteFingerprint) = try Self.answer(session, parameters: parameters)
        let media = LegMedia(negotiation: answer.negotiation, localSSRCs: localSSRCs, localRTXSSRCs: localRTXSSRCs)
        guard media.audio != nil || media.video != nil else { throw .noAcceptableMedia }

        let dtls: DTLSTransport
        do {
            let context = first.localSetup == .active ? try dtlsClientContext ?? dtlsContext.sibling(role: .client) : dtlsContext
            dtls = try DTLSTransport(context: context, remoteFingerprint: remoteFingerprint)
        } catch {
            throw .internalFailure("DTLS endpoint: \(error)")
        }
        let timeout = configuration.consentTimeout.components
        let ice = ICELiteAgent(
            localUfrag: parameters.iceUfrag, localPassword: parameters.icePwd, remoteUfrag: remoteUfrag,
            consentTimeout: .nanoseconds(timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000),
            now: .now())
        let leg = RelayLeg(id: id, owner: owner, media: media, ice: ice, dtls: dtls, answerParameters: parameters,
                           remoteFingerprint: remoteFingerprint, localSetup: first.localSetup)
        return Setup(leg: leg, answer: answer.sdp)
    }

    static func parse(_ offer: String) throws(MediaRelayError) -> SessionDescription {
        do {
            return try SessionDescription(parsing: offer)
        } catch {
            throw .invalidOffer("The offer is not valid SDP: \(error)")
        }
    }

    /// Answers `session` with `parameters`; returns the answer, its first accepted section and
    /// the client's ICE ufrag and DTLS fingerprint.
    static func answer(_ session: SessionDescription, parameters: SDPRelayParameters) throws(MediaRelayError)
        -> (SDPAnswer, NegotiatedMedia, remoteUfrag: String, DTLSFingerprint) {
        let answer: SDPAnswer
        do {
            answer = try SDPAnswerer.answer(offer: session, relay: parameters)
        } catch .noAcceptableMedia {
            throw .noAcceptableMedia
        } catch {
            throw .invalidOffer(error.description)
        }

        let accepted = answer.negotiation.accepted
        // One transport per leg: several accepted sections must share it through BUNDLE (RFC 8843).
        if accepted.count > 1, !accepted.allSatisfy({ $0.mid.map(answer.negotiation.bundleMids.contains) ?? false }) {
            throw .invalidOffer("Several media sections must be bundled (a=group:BUNDLE); the relay has one transport per leg")
        }
        guard let first = accepted.first, let remoteUfrag = first.remoteICEUfrag,
              let offered = first.remoteFingerprint else {
            throw .invalidOffer("The offer has no ICE credentials or DTLS fingerprint")
        }
        guard let remoteFingerprint = DTLSFingerprint(sdp: "\(offered.algorithm) \(offered.value)") else {
            throw .invalidOffer("Unsupported fingerprint \(offered.algorithm)")
        }
        return (answer, first, remoteUfrag, remoteFingerprint)
    }
}

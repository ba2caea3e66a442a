import ParleyDTLS
import ParleySDP

extension LegFactory {
    /// What an ICE restart needs to know of a live leg, read on the relay's loop.
    struct RestartBasis: Sendable {
        var parameters: SDPRelayParameters
        var media: LegMedia
        var remoteFingerprint: DTLSFingerprint
        var localSetup: SDPSetupRole
        /// The client ufrags of the current and any pending credentials: a restart offer must
        /// bring a new one.
        var remoteUfrags: [String]
    }

    /// The outcome of a restart offer: the answer and what the leg takes from it.
    struct Restart: Sendable {
        /// The basis's parameters with new ICE credentials and the next session version.
        var parameters: SDPRelayParameters
        var media: LegMedia
        var remoteUfrag: String
        var answer: String
    }

    /// Answers an ICE restart offer for a leg (RFC 8445 §9, RFC 8839 §4.4.1.1.1): fresh relay
    /// ufrag/pwd, the same fingerprint, SSRCs and DTLS role, the next `o=` version (RFC 3264 §8).
    /// Refuses offers that do not restart ICE, or that change what the leg keeps — the DTLS
    /// certificate (the association and SRTP keys stay), the DTLS role, the media sections or
    /// their codecs (the partner's forwarding would not match).
    func restart(_ basis: RestartBasis, offer: String) throws(MediaRelayError) -> Restart {
        let session = try Self.parse(offer)
        var parameters = basis.parameters
        parameters.iceUfrag = Self.randomICEString(length: 8)
        parameters.icePwd = Self.randomICEString(length: 24)
        parameters.sessionVersion += 1
        parameters.preferredSetup = basis.localSetup
        let (answer, first, remoteUfrag, remoteFingerprint) = try Self.answer(session, parameters: parameters)

        guard !basis.remoteUfrags.contains(remoteUfrag) else {
            throw .notAnICERestart
        }
        guard remoteFingerprint == basis.remoteFingerprint else {
            throw .restartRefused(code: "fingerprint_changed",
                                  "The offer's DTLS fingerprint is not the one the call was set up with; an ICE restart keeps the DTLS association")
        }
        guard first.localSetup == basis.localSetup else {
            throw .restartRefused(code: "dtls_role_changed",
                                  "The offer would make the relay DTLS \(first.localSetup.rawValue), but it is \(basis.localSetup.rawValue) in this call")
        }
        for section in answer.negotiation.accepted {
            guard let mid = section.mid, basis.parameters.streams[mid] != nil else {
                throw .mediaChanged("the offer adds media section \(section.mid ?? "?")")
            }
        }
        let localSSRCs = basis.parameters.streams.mapValues(\.ssrc)
        let localRTXSSRCs = basis.parameters.streams.compactMapValues(\.rtxSSRC)
        let media = try Self.keptMedia(basis.media, LegMedia(negotiation: answer.negotiation, localSSRCs: localSSRCs,
                                                             localRTXSSRCs: localRTXSSRCs))
        return Restart(parameters: parameters, media: media, remoteUfrag: remoteUfrag, answer: answer.sdp)
    }

    /// The leg's media after a restart: per kind the same mid, payload type, clock rate and
    /// direction; header extensions as newly offered; the client's SSRCs as newly offered, or
    /// the ones already known (learnt from its RTP) when the offer has none.
    static func keptMedia(_ old: LegMedia, _ new: LegMedia) throws(MediaRelayError) -> LegMedia {
        var sections: [LegMediaSection] = []
        for kind in RelayMediaKind.allCases {
            switch (old[kind], new[kind]) {
            case (nil, nil):
                continue
            case (let before?, var after?):
                guard before.mid == after.mid, before.payloadType == after.payloadType,
                      before.rtxPayloadType == after.rtxPayloadType,
                      before.clockRate == after.clockRate, before.relaySends == after.relaySends else {
                    throw .mediaChanged("the \(kind) section changed (mid \(before.mid)→\(after.mid), payload type \(before.payloadType)→\(after.payloadType), sends \(before.relaySends)→\(after.relaySends))")
                }
                if after.remoteSSRCs.isEmpty { after.remoteSSRCs = before.remoteSSRCs }
                sections.append(after)
            case (let before, let after):
                throw .mediaChanged("the offer \(before == nil ? "adds" : "drops") \(kind) (was \(before?.mid ?? "none"), now \(after?.mid ?? "none"))")
            }
        }
        return LegMedia(sections: sections)
    }
}

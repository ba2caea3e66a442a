import NIOCore
import ParleyDTLS
import ParleySDP
import ParleySRTP

/// The two SRTP directions of a connected leg (RFC 5764 §4.2): the relay unprotects with the
/// peer's write key and protects with its own, which is the server's or the client's by the
/// side it played in DTLS.
final class SRTPPair {
    var inbound: SRTPSession
    var outbound: SRTPSession
    let profile: SRTPProfile

    init(_ keys: SRTPKeyingMaterial, role: DTLSRole) throws(SRTPError) {
        inbound = try SRTPSession(profile: keys.profile, key: keys.inbound(for: role), direction: .inbound)
        // Repeats allowed: a NACK is answered with the same packet under the same index (RelayEngine+NACK).
        outbound = try SRTPSession(profile: keys.profile, key: keys.outbound(for: role), direction: .outbound,
                                   allowsRepeatTransmission: true)
        profile = keys.profile
    }
}

/// One leg's state inside the relay: negotiation result, ICE, DTLS, SRTP, partner and counters.
///
/// Owned by ``RelayEngine`` and touched only on its event loop; built off the loop by
/// ``MediaRelay/createLeg(offer:owner:)`` and handed over once, which is why it is
/// `@unchecked Sendable`.
final class RelayLeg: @unchecked Sendable {
    let id: LegID
    let owner: String
    var media: LegMedia {
        didSet { mediaLookup = LegMedia.Lookup(media) }
    }
    /// ``media``'s per-packet answers as plain values, kept in step with it.
    private(set) var mediaLookup: LegMedia.Lookup
    var ice: ICELiteAgent
    /// Which address media goes to (``MediaPath``); ``sendAddress`` mirrors its target.
    var path = MediaPath()
    /// The relay's DTLS end: the server, or the client for a passive peer.
    var dtls: DTLSTransport
    /// What the last answer was made of, kept for an ICE restart's answer: the same SSRCs,
    /// fingerprint and session id, new ICE credentials, a higher session version.
    var answerParameters: SDPRelayParameters
    /// The client's certificate fingerprint from its first offer: a restart must not change it.
    let remoteFingerprint: DTLSFingerprint
    /// The relay's DTLS role in the first answer: a restart answer keeps it (RFC 8842 §5.5).
    let localSetup: SDPSetupRole
    var srtp: SRTPPair?
    var state: LegState = .waitingForICE

    /// Where forwarded media goes: the partner, or the leg itself for an echo call. A strong
    /// reference; ``RelayEngine/release(_:)`` breaks the cycle.
    var target: RelayLeg?
    /// How this leg's packets are rewritten for ``target``.
    var plan: ForwardingPlan?

    /// Where media goes: ``path``'s target, as a plain value for the packet path. Nominated
    /// and proved (see ``MediaPath``).
    var sendAddress: PeerAddress?
    /// The relay ufrags ``RelayEngine/legsByUfrag`` holds for this leg.
    var registeredUfrags: [String] = []
    /// The addresses ``RelayEngine/legsByAddress`` gives this leg: those its agent still holds
    /// valid (``ICELiteAgent/maxValidAddresses``), and the send target (`RelayEngine+Addresses`).
    var heldAddresses: [PeerAddress] = []
    /// Where DTLS came from last: retransmissions and alerts go there.
    var dtlsAddress: PeerAddress?

    var packetsIn: UInt64 = 0
    var bytesIn: UInt64 = 0
    var packetsOut: UInt64 = 0
    var bytesOut: UInt64 = 0
    var decryptFailures: UInt64 = 0
    /// Video packets sent again from ``history`` for this leg's NACKs.
    var retransmitted: UInt64 = 0
    /// Of ``retransmitted``, those sent as RTX.
    var retransmittedAsRTX: UInt64 = 0
    /// The next sequence number of the relay's RTX stream to this leg (RFC 4588 §4: its own
    /// numbering, random start), for forwarded RTX and the relay's own resends alike.
    var rtxSequence = UInt16.random(in: 0...UInt16.max)
    /// Video packets from and to this leg counted for the tests' loss hooks
    /// (``RelayConfiguration/testVideoLossInbound``, ``RelayConfiguration/testVideoLossOutbound``).
    var testLossInbound = 0
    var testLossOutbound = 0
    /// The video lately sent to this leg, for its NACKs; made with the first video packet.
    var history: RetransmissionHistory?
    /// Set while this leg waits for a video key frame the relay asked its partner for; cleared
    /// when one is forwarded to it (see ``RelayEngine/requestKeyFrame(for:now:)``).
    var keyFrameWait: KeyFrameWait?
    var iceRestarts: UInt64 = 0
    var lastActivity: NIODeadline?
    /// When the first DTLS flight came or went: the start of the handshake's time.
    var dtlsStarted: NIODeadline?
    /// Media from this leg has been forwarded to its partner (reported once, `mediaFlowing`).
    var forwardedMedia = false
    /// RFC 3550 reception statistics per kind (audio, video).
    var reception: [RTPReceptionStatistics] = [RTPReceptionStatistics(), RTPReceptionStatistics()]
    /// The SSRCs the client has sent RTP with, at most ``RelayConfiguration/maxSSRCsPerLeg``.
    var ssrcsSeen: [UInt32] = []

    /// Whether RTP with `ssrc` may go on: one already seen, or a new one while there is room
    /// (which it then takes). A linear scan of a handful, only for packets off the primary SSRC.
    func admitSSRC(_ ssrc: UInt32, limit: Int) -> Bool {
        if ssrcsSeen.contains(ssrc) { return true }
        guard ssrcsSeen.count < limit else { return false }
        ssrcsSeen.append(ssrc)
        return true
    }

    init(id: LegID, owner: String, media: LegMedia, ice: ICELiteAgent, dtls: consuming DTLSTransport,
         answerParameters: SDPRelayParameters, remoteFingerprint: DTLSFingerprint, localSetup: SDPSetupRole) {
        self.id = id
        self.owner = owner
        self.media = media
        self.mediaLookup = LegMedia.Lookup(media)
        self.ice = ice
        self.dtls = dtls
        self.answerParameters = answerParameters
        self.remoteFingerprint = remoteFingerprint
        self.localSetup = localSetup
    }

    /// Whether media may be sent to this leg: an address was nominated and proved itself, and
    /// DTLS exported keys.
    var canReceiveMedia: Bool {
        state == .connected && sendAddress != nil
    }

    func stats(now: NIODeadline) -> LegStats {
        var stats = LegStats(leg: id, owner: owner, state: state)
        stats.packetsIn = packetsIn
        stats.bytesIn = bytesIn
        stats.packetsOut = packetsOut
        stats.bytesOut = bytesOut
        stats.decryptFailures = decryptFailures
        stats.idleFor = lastActivity.map { .nanoseconds((now - $0).nanoseconds) }
        stats.srtpProfile = srtp.map { $0.profile.openSSLName }
        stats.sendAddress = sendAddress
        stats.addressSwitches = path.switches
        stats.iceRestarts = iceRestarts
        for kind in RelayMediaKind.allCases {
            let reception = reception[kind.rawValue]
            guard reception.received > 0, let section = media[kind] else { continue }
            let value = LegStats.StreamStats(
                ssrc: reception.ssrc, received: reception.received, expected: reception.expected,
                cumulativeLost: reception.cumulativeLost,
                jitterMilliseconds: Double(reception.jitter) * 1000 / Double(section.clockRate))
            if kind == .audio { stats.audio = value } else { stats.video = value }
        }
        return stats
    }
}

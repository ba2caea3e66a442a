import NIOCore

/// Which one address of a leg the relay sends media to, and when that address may change
/// (NAT rebinding, a phone moving from Wi-Fi to cellular, an ICE restart).
///
/// A pure state machine: addresses and times go in, the new send target (if it changed) comes
/// out; the clock is passed in.
///
/// **The rule.** An address becomes the send target only when it holds both of these:
/// 1. *Checked and chosen*: it sent a Binding request that authenticated with the leg's current
///    ICE password, and either that check (or a later one from it) carried USE-CANDIDATE — the
///    controlling agent nominated it (RFC 8445 §7.3.1.5; a lite agent takes a new nomination,
///    as pion/ice does with renomination) — or the current target has been silent for
///    ``silence`` (no authenticated packet and no valid check from it). The second case is NAT
///    rebinding: the client's agent does not know its address changed, so it never nominates
///    again; its consent checks (RFC 7675 §5.1, sent without USE-CANDIDATE by aiortc) simply
///    start arriving from a new address while the old one falls silent.
/// 2. *Proved*: an SRTP/SRTCP packet from it authenticated under the leg's keys, or the DTLS
///    handshake that derived those keys completed from it — at or after the moment of (1) once
///    a target exists, so a stale proof cannot be revived by a later nomination.
///
/// The password alone therefore moves nothing: a second socket that learnt the ufrag/pwd and
/// answers one check (even with USE-CANDIDATE) gets no media, because it cannot produce a
/// packet that authenticates under the SRTP keys (replays fail the replay check). mediasoup is
/// looser (any checked tuple whose RTP decrypts is selected, `MayForceSelectedTuple`); pion/ice
/// follows nominations only. Inbound media from a checked address that is not the target is
/// still accepted (the relay only decides where it *sends*); media from an address that never
/// passed a check is dropped before it gets here (``DropReason/unknownSource``).
public struct MediaPath: Sendable {
    /// Addresses remembered at most; the oldest non-target one is forgotten first.
    public static let maxAddresses = 8
    /// The target counts as silent after this long without an authenticated packet or a valid
    /// check: about libwebrtc's 2.5 s "receiving" timeout, shorter than the 4–6 s between consent
    /// checks (RFC 7675 §5.1), so one check from a rebound address is enough.
    public static let defaultSilence: TimeAmount = .seconds(2)

    struct Candidate: Sendable, Equatable {
        var address: PeerAddress
        /// When it became eligible (nominated, or checked while the target was silent).
        var eligibleAt: NIODeadline?
        /// When it last proved itself (authenticated SRTP/SRTCP, or the DTLS handshake).
        var provedAt: NIODeadline?
    }

    public let silence: TimeAmount
    /// Where media goes; nil until an address is checked, chosen and proved.
    public private(set) var target: PeerAddress?
    /// The last authenticated packet or valid check from ``target``.
    public private(set) var targetHeardAt: NIODeadline?
    /// Checked addresses other than the target, oldest first.
    private(set) var candidates: [Candidate] = []
    /// How many times the target changed after the first.
    public private(set) var switches: UInt64 = 0

    public init(silence: TimeAmount = MediaPath.defaultSilence) {
        self.silence = silence
    }

    /// Whether the target has been silent for ``silence``. False while there is no target: the
    /// first one must be nominated (a lite agent sends only on a nominated pair, RFC 8445 §7.3.1.5).
    public func isTargetSilent(now: NIODeadline) -> Bool {
        guard target != nil, let heard = targetHeardAt else { return false }
        return now - heard >= silence
    }

    /// A Binding request from `address` authenticated with the leg's current ICE password;
    /// `nominating` when it carried USE-CANDIDATE. Returns the new target if it changed.
    public mutating func checked(from address: PeerAddress, nominating: Bool, now: NIODeadline) -> PeerAddress? {
        if address == target {
            targetHeardAt = now
            return nil
        }
        let silent = isTargetSilent(now: now)
        let index = candidateIndex(address) ?? insert(address)
        if candidates[index].eligibleAt == nil, nominating || silent {
            candidates[index].eligibleAt = now
        }
        return promoteIfReady(index, now: now)
    }

    /// A packet from `address` authenticated under the leg's keys (SRTP/SRTCP, or the DTLS
    /// handshake completing). Returns the new target if it changed.
    ///
    /// Called for every authenticated packet: the target's own is one comparison and a store.
    @inline(__always)
    public mutating func authenticated(from address: PeerAddress, now: NIODeadline) -> PeerAddress? {
        if address == target {
            targetHeardAt = now
            return nil
        }
        return authenticatedElsewhere(address, now: now)
    }

    /// Forgets every address but the target: the credentials they were checked with were
    /// replaced by an ICE restart (RFC 8445 §9), so they must check in again with the new ones.
    public mutating func credentialsRenewed() {
        candidates.removeAll()
    }

    /// Whether `address` passed a check with the current credentials (or is the target).
    public func isChecked(_ address: PeerAddress) -> Bool {
        address == target || candidateIndex(address) != nil
    }

    private mutating func authenticatedElsewhere(_ address: PeerAddress, now: NIODeadline) -> PeerAddress? {
        guard let index = candidateIndex(address) else { return nil }
        candidates[index].provedAt = now
        if candidates[index].eligibleAt == nil, isTargetSilent(now: now) {
            candidates[index].eligibleAt = now
        }
        return promoteIfReady(index, now: now)
    }

    /// Makes the candidate at `index` the target if it is eligible and proved — with the proof
    /// no older than the eligibility once a target exists.
    private mutating func promoteIfReady(_ index: Int, now: NIODeadline) -> PeerAddress? {
        let candidate = candidates[index]
        guard let eligibleAt = candidate.eligibleAt, let provedAt = candidate.provedAt else { return nil }
        guard target == nil || provedAt >= eligibleAt else { return nil }
        candidates.remove(at: index)
        if target != nil { switches &+= 1 }
        target = candidate.address
        targetHeardAt = now
        return candidate.address
    }

    private func candidateIndex(_ address: PeerAddress) -> Int? {
        candidates.firstIndex { $0.address == address }
    }

    private mutating func insert(_ address: PeerAddress) -> Int {
        if candidates.count >= Self.maxAddresses - 1 { candidates.removeFirst() }
        candidates.append(Candidate(address: address))
        return candidates.count - 1
    }
}

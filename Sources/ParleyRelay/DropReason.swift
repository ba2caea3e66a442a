/// Why the packet path dropped a datagram. Each has its own counter in ``RelayCounters``;
/// nothing on the packet path throws (see STYLE.md).
public enum DropReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// First byte outside STUN, DTLS and RTP/RTCP ranges (RFC 7983 §7).
    case unknownKind
    /// First byte says STUN (0–3) but the message does not parse (RFC 8489 §6).
    case notSTUN
    /// A STUN message that is not a Binding request (responses, indications).
    case stunIgnored
    /// A Binding request without USERNAME, or with one no leg owns.
    case unknownUsername
    /// MESSAGE-INTEGRITY or FINGERPRINT did not verify (RFC 8489 §14.5, §14.7).
    case badIntegrity
    /// A check with ICE credentials an ICE restart replaced, past the overlap (RFC 8445 §9).
    case staleCredentials
    /// DTLS from an address that passed no connectivity check for any leg.
    case dtlsForUnknownLeg
    /// SRTP/SRTCP from an address that passed no connectivity check.
    case unknownSource
    /// SRTP/SRTCP for a leg whose DTLS handshake has not finished (no keys yet), or that died.
    case notConnected
    /// The SRTP/SRTCP authentication tag did not verify (RFC 3711 §3.3).
    case srtpAuthFail
    /// Replayed or too old for the replay window (RFC 3711 §3.3.2).
    case replay
    /// Other libsrtp failures on unprotect (too short, bad parameters).
    case srtpError
    /// The decrypted RTP header does not parse (RFC 3550 §5.1).
    case malformedRTP
    /// The decrypted RTCP compound does not parse (RFC 3550 §6.1).
    case malformedRTCP
    /// An RTP payload type the leg did not negotiate (RTX, RED, … were left out of the answer).
    case unknownPayloadType
    /// The leg has no partner, or the partner has not finished ICE and DTLS, or does not take
    /// this kind of media.
    case noTarget
    /// RTP, RTX or RTCP from an SSRC the leg has not used before, when it has already used
    /// ``RelayConfiguration/maxSSRCsPerLeg`` of them: its state (plans, statistics, libsrtp's
    /// streams) stays bounded.
    case ssrcLimit
    /// Protecting for the partner failed (libsrtp error).
    case protectFailed
    /// Larger than the receive buffer allows.
    case oversized
    /// A frame on a TCP connection that has not passed a connectivity check, other than a valid
    /// check (RFC 6544 §7.1: the first packet must be STUN): the connection is closed.
    case tcpUnauthenticated
    /// An RFC 4571 length over the largest packet accepted: the stream is closed.
    case tcpFraming
    /// For a TCP connection whose queue already holds ``RelayConfiguration/tcpSendBufferBytes``.
    case tcpSendBufferFull
    /// For a TCP address whose connection has closed.
    case tcpNoConnection
    /// A NACK naming a packet the relay already sent again ``RetransmissionHistory/maxResends``
    /// times: not sent once more (a client cannot turn one small RTCP packet into many resends).
    case resendLimit
    /// An RTX packet (RFC 4588 §4) whose payload is shorter than the original sequence number.
    case rtxTooShort
    /// A padding-only RTX packet (bandwidth probing) for a receiver that did not negotiate RTX:
    /// there is no original packet to restore.
    case rtxPadding
    /// A valid check for one leg from an address another live leg holds: the address stays that
    /// leg's (a check made with one's own credentials from someone else's address — spoofed, or
    /// a NAT's port given to a second client — must not take their media).
    case addressTaken
    /// Tests only: ``RelayConfiguration/testVideoLossInbound`` / ``RelayConfiguration/testVideoLossOutbound``.
    case testLoss

    public var description: String {
        switch self {
        case .unknownKind: "unknown_kind"
        case .notSTUN: "not_stun"
        case .stunIgnored: "stun_ignored"
        case .unknownUsername: "unknown_username"
        case .badIntegrity: "bad_integrity"
        case .staleCredentials: "stale_credentials"
        case .dtlsForUnknownLeg: "dtls_for_unknown_leg"
        case .unknownSource: "unknown_source"
        case .notConnected: "not_connected"
        case .srtpAuthFail: "srtp_auth_fail"
        case .replay: "replay"
        case .srtpError: "srtp_error"
        case .malformedRTP: "malformed_rtp"
        case .malformedRTCP: "malformed_rtcp"
        case .unknownPayloadType: "unknown_payload_type"
        case .noTarget: "no_target"
        case .ssrcLimit: "ssrc_limit"
        case .protectFailed: "protect_failed"
        case .oversized: "oversized"
        case .tcpUnauthenticated: "tcp_unauthenticated"
        case .tcpFraming: "tcp_framing"
        case .tcpSendBufferFull: "tcp_send_buffer_full"
        case .tcpNoConnection: "tcp_no_connection"
        case .resendLimit: "resend_limit"
        case .rtxTooShort: "rtx_too_short"
        case .rtxPadding: "rtx_padding"
        case .addressTaken: "address_taken"
        case .testLoss: "test_loss"
        }
    }
}

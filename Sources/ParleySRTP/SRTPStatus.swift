import CParleyShim
import CSRTP

/// What became of one packet handed to ``SRTPSession``. The packet path returns this instead of
/// throwing, so the relay can count a drop reason per case.
public enum SRTPStatus: Sendable, Hashable {
    /// Done; the length was updated.
    case ok
    /// The authentication tag did not verify (RFC 3711 §3.3 step 5; RFC 7714 §7.2).
    case authFail
    /// The packet index was already seen inside the replay window (RFC 3711 §3.3.2).
    case replayFail
    /// The packet index is older than the replay window (RFC 3711 §3.3.2).
    case replayOld
    /// Malformed input: too short, a bad header, or the wrong session direction.
    case badParameter
    /// The buffer has no room after the packet for the tag (see ``SRTPProfile/rtpOverhead``).
    case bufferTooSmall
    /// Any other libsrtp status, by its `srtp_err_status_t` value.
    case other(UInt32)

    init(_ status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_ok: self = .ok
        case srtp_err_status_auth_fail: self = .authFail
        case srtp_err_status_replay_fail: self = .replayFail
        case srtp_err_status_replay_old: self = .replayOld
        case srtp_err_status_bad_param: self = .badParameter
        default: self = .other(status.rawValue)
        }
    }
}

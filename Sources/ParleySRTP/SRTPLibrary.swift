import CParleyShim
import CSRTP

/// libsrtp's process-wide state.
enum SRTPLibrary {
    /// `srtp_init` must run once before any session is created. A static `let` is initialised
    /// exactly once, on first use, under the runtime's once-lock, so this is thread-safe.
    static let initStatus: srtp_err_status_t = srtp_init()
}

/// Why an ``SRTPSession`` could not be created. (Packets never throw: see ``SRTPStatus``.)
public enum SRTPError: Error, Sendable, Hashable {
    /// `srtp_init` failed, with its `srtp_err_status_t` value.
    case libraryInitFailed(UInt32)
    /// The master key or salt length does not fit the profile.
    case badKeyLength(profile: SRTPProfile, keyLength: Int, saltLength: Int)
    /// `srtp_create` failed, with its `srtp_err_status_t` value.
    case createFailed(UInt32)
}

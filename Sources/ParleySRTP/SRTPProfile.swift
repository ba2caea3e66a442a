/// The SRTP protection profiles Parley negotiates over DTLS-SRTP (RFC 5764 §4.1.2, RFC 7714 §14.2).
///
/// WebRTC clients offer all three; the relay prefers ``aeadAES128GCM`` because it costs about a
/// quarter of ``aes128CMHMACSHA1_80`` per packet on this hardware (see BUILDING.md).
public enum SRTPProfile: Sendable, Hashable, CaseIterable {
    /// `SRTP_AES128_CM_HMAC_SHA1_80`: AES-128 counter mode with an 80-bit HMAC-SHA1 tag
    /// (RFC 3711 §4.1.1, §4.2.1). The RFC 3711 default and every client's baseline.
    case aes128CMHMACSHA1_80
    /// `SRTP_AEAD_AES_128_GCM`: AES-128-GCM with a 16-byte tag (RFC 7714 §12).
    case aeadAES128GCM
    /// `SRTP_AEAD_AES_256_GCM`: AES-256-GCM with a 16-byte tag (RFC 7714 §12).
    case aeadAES256GCM

    /// The DTLS-SRTP protection profile id carried in the `use_srtp` extension
    /// (RFC 5764 §4.1.2; RFC 7714 §14.2 for the AEAD ones).
    public var dtlsProtectionProfileID: UInt16 {
        switch self {
        case .aes128CMHMACSHA1_80: 0x0001
        case .aeadAES128GCM: 0x0007
        case .aeadAES256GCM: 0x0008
        }
    }

    /// The profile with this DTLS-SRTP id, or nil for one Parley does not support
    /// (e.g. `SRTP_AES128_CM_HMAC_SHA1_32`, 0x0002).
    public init?(dtlsProtectionProfileID id: UInt16) {
        guard let profile = Self.allCases.first(where: { $0.dtlsProtectionProfileID == id }) else { return nil }
        self = profile
    }

    /// The name OpenSSL uses for this profile in `SSL_CTX_set_tlsext_use_srtp`.
    public var openSSLName: String {
        switch self {
        case .aes128CMHMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        }
    }

    /// Master key length in bytes (RFC 5764 §4.1.2, RFC 7714 §12).
    public var masterKeyLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80, .aeadAES128GCM: 16
        case .aeadAES256GCM: 32
        }
    }

    /// Master salt length in bytes: 112 bits for AES-CM (RFC 3711 §8.2), 96 bits for GCM
    /// (RFC 7714 §12).
    public var masterSaltLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80: 14
        case .aeadAES128GCM, .aeadAES256GCM: 12
        }
    }

    /// Authentication tag length in bytes: 80 bits (RFC 3711 §4.2) or 16 bytes of GCM tag (RFC 7714 §7.2).
    public var authTagLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80: 10
        case .aeadAES128GCM, .aeadAES256GCM: 16
        }
    }

    /// Bytes `protect` appends to an RTP packet: the tag (no MKI is used).
    public var rtpOverhead: Int { authTagLength }

    /// Bytes `protect` appends to an RTCP packet: E flag + SRTCP index (4 bytes) and the tag
    /// (RFC 3711 §3.4, RFC 7714 §9).
    public var rtcpOverhead: Int { 4 + authTagLength }

    /// Length of the keying material to export from DTLS for this profile:
    /// 2 × (key + salt) (RFC 5764 §4.2).
    public var exportedKeyingMaterialLength: Int { 2 * (masterKeyLength + masterSaltLength) }
}

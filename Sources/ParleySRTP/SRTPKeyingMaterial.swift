/// The SRTP master keys a DTLS-SRTP handshake yields, split by who writes with them.
///
/// The exporter output (label `EXTRACTOR-dtls_srtp`) is laid out as (RFC 5764 §4.2):
/// ```
/// client_write_SRTP_master_key[key] | server_write_SRTP_master_key[key]
/// client_write_SRTP_master_salt[salt] | server_write_SRTP_master_salt[salt]
/// ```
public struct SRTPKeyingMaterial: Sendable, Hashable {
    public let profile: SRTPProfile
    /// What the DTLS client (the browser or app) protects its packets with.
    public let clientWrite: SRTPMasterKey
    /// What the DTLS server (the relay) protects its packets with.
    public let serverWrite: SRTPMasterKey

    /// Splits exported keying material; nil unless it is exactly
    /// ``SRTPProfile/exportedKeyingMaterialLength`` bytes.
    public init?(exported material: [UInt8], profile: SRTPProfile) {
        let keyLength = profile.masterKeyLength
        let saltLength = profile.masterSaltLength
        guard material.count == profile.exportedKeyingMaterialLength else { return nil }
        let saltStart = 2 * keyLength
        self.profile = profile
        clientWrite = SRTPMasterKey(
            key: Array(material[0..<keyLength]),
            salt: Array(material[saltStart..<saltStart + saltLength]))
        serverWrite = SRTPMasterKey(
            key: Array(material[keyLength..<saltStart]),
            salt: Array(material[(saltStart + saltLength)...]))
    }

    /// For the relay, which is always the DTLS server: unprotect what arrives with the client's
    /// write key.
    public var serverInbound: SRTPMasterKey { clientWrite }

    /// For the relay: protect what it sends with the server's write key.
    public var serverOutbound: SRTPMasterKey { serverWrite }

    /// For a DTLS client (a test or load client): unprotect what the server sends.
    public var clientInbound: SRTPMasterKey { serverWrite }

    /// For a DTLS client: protect what it sends with the client's write key.
    public var clientOutbound: SRTPMasterKey { clientWrite }
}

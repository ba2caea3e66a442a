import ParleySRTP
import Testing

/// Known-answer SRTP/SRTCP packets.
///
/// RFC 3711 Appendix B.2/B.3 test the AES-CM keystream and the KDF, not whole packets, and
/// RFC 7714 §16 starts from session keys (after the KDF), which libsrtp does not accept; so these
/// packets were made offline, once, by two independent implementations that agreed byte for byte:
/// 1. pylibsrtp 1.0.0 (PyPI; its own libsrtp build on OpenSSL): `Policy(key: masterKey + masterSalt,
///    ssrc_type: SSRC_ANY_OUTBOUND, srtp_profile: …)`, `Session.protect` / `Session.protect_rtcp`.
/// 2. For RTP only, a 40-line Python script over `cryptography` 50: the RFC 3711 §4.3.1 KDF
///    (AES-CM PRF; a 96-bit GCM salt padded with two zero bytes, RFC 7714 §11), AES-CM +
///    HMAC-SHA1-80 (RFC 3711 §4.1.1, §4.2.1) and AES-GCM with IV = salt ⊕ (0 ‖ SSRC ‖ ROC ‖ SEQ)
///    and AAD = the RTP header (RFC 7714 §8.1).
/// Each is the first packet of its session: ROC 0, SRTCP index 1.
enum SRTPVectors {
    /// RTP: V=2, M=1, PT=96, seq 0x1234, ts 0xDECAFBAD, SSRC 0xCAFEBABE, payload 0x40…0x53.
    static let rtp: [UInt8] = hex("80e01234decafbadcafebabe" + "404142434445464748494a4b4c4d4e4f50515253")

    /// RTCP receiver report from SSRC 0xCAFEBABE with one report block.
    static let rtcp: [UInt8] = hex("81c90007cafebabe" + "112233440500000200001a2b00000010decafbad00000100")

    static let masterKey16: [UInt8] = Array(0x00...0x0F)
    static let masterKey32: [UInt8] = Array(0x00...0x1F)
    static let masterSalt14: [UInt8] = Array(0xA0...0xAD)
    static let masterSalt12: [UInt8] = Array(0xA0...0xAB)

    struct Case: Sendable, CustomTestStringConvertible {
        let profile: SRTPProfile
        let key: SRTPMasterKey
        /// header ‖ encrypted payload ‖ 10-byte HMAC tag (CM) or 16-byte GCM tag.
        let srtp: [UInt8]
        /// header ‖ encrypted body ‖ E+index ‖ tag (CM), or header ‖ encrypted body ‖ tag ‖ E+index (GCM).
        let srtcp: [UInt8]
        var testDescription: String { "\(profile)" }
    }

    static let cases: [Case] = [
        Case(profile: .aes128CMHMACSHA1_80, key: .init(key: masterKey16, salt: masterSalt14),
             srtp: hex("80e01234decafbadcafebabe" + "09323667959b3b6420b2cf0e254f6582072aaaf6"
                 + "834b7b10993668faaef2"),
             srtcp: hex("81c90007cafebabe" + "ecfd27ee2f966bcb07b64777f4dc6d33cecc71f5fd60b609"
                 + "80000001" + "e1bb3c762677ab949ade")),
        Case(profile: .aeadAES128GCM, key: .init(key: masterKey16, salt: masterSalt12),
             srtp: hex("80e01234decafbadcafebabe" + "2eeac736eb2130c25af3b8006fec458a3acb5d22"
                 + "69b5f62d0a58bd4d6501ab32983fe80f"),
             srtcp: hex("81c90007cafebabe" + "730213b25e9281fc2e80dda10725db9e17a4f7452a42dcf9"
                 + "40532dac343e2c596d01e92083f21c51" + "80000001")),
        Case(profile: .aeadAES256GCM, key: .init(key: masterKey32, salt: masterSalt12),
             srtp: hex("80e01234decafbadcafebabe" + "e11d1bf6657e504199a0bd7cd60bae551bc2f088"
                 + "3342d6b7429972c61f4fe74f4c1ede2c"),
             srtcp: hex("81c90007cafebabe" + "303637482eaca13943a420e164e107b31c2fd6e52f4c4b73"
                 + "07b9f75a669a6db0a1e17ab7e92b28c6" + "80000001")),
    ]

    static func hex(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = string.startIndex
        while index < string.endIndex {
            let next = string.index(index, offsetBy: 2)
            bytes.append(UInt8(string[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}

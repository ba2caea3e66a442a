import Testing
import ParleySRTP

@Suite("DTLS-SRTP profiles and keying material (RFC 5764 §4.1.2, §4.2; RFC 7714 §12, §14.2)")
struct SRTPKeyingMaterialTests {
    @Test("profile ids, lengths and OpenSSL names")
    func profiles() {
        #expect(SRTPProfile.aes128CMHMACSHA1_80.dtlsProtectionProfileID == 0x0001)
        #expect(SRTPProfile.aeadAES128GCM.dtlsProtectionProfileID == 0x0007)
        #expect(SRTPProfile.aeadAES256GCM.dtlsProtectionProfileID == 0x0008)
        #expect(SRTPProfile(dtlsProtectionProfileID: 0x0007) == .aeadAES128GCM)
        #expect(SRTPProfile(dtlsProtectionProfileID: 0x0002) == nil)
        #expect(SRTPProfile.aes128CMHMACSHA1_80.exportedKeyingMaterialLength == 60)
        #expect(SRTPProfile.aeadAES128GCM.exportedKeyingMaterialLength == 56)
        #expect(SRTPProfile.aeadAES256GCM.exportedKeyingMaterialLength == 88)
        #expect(SRTPProfile.aeadAES128GCM.openSSLName == "SRTP_AEAD_AES_128_GCM")
    }

    @Test("split in client key, server key, client salt, server salt order", arguments: SRTPProfile.allCases)
    func split(_ profile: SRTPProfile) throws {
        let k = profile.masterKeyLength, s = profile.masterSaltLength
        let material = [UInt8](repeating: 0xC1, count: k) + [UInt8](repeating: 0x51, count: k)
            + [UInt8](repeating: 0xC5, count: s) + [UInt8](repeating: 0x55, count: s)
        let keys = try #require(SRTPKeyingMaterial(exported: material, profile: profile))
        #expect(keys.clientWrite == SRTPMasterKey(key: .init(repeating: 0xC1, count: k), salt: .init(repeating: 0xC5, count: s)))
        #expect(keys.serverWrite == SRTPMasterKey(key: .init(repeating: 0x51, count: k), salt: .init(repeating: 0x55, count: s)))
        #expect(keys.serverInbound == keys.clientWrite)
        #expect(keys.serverOutbound == keys.serverWrite)
        #expect(SRTPKeyingMaterial(exported: Array(material.dropLast()), profile: profile) == nil)
    }

    @Test("the client's outbound session talks to the server's inbound one")
    func directions() throws {
        let profile = SRTPProfile.aeadAES128GCM
        let material = (0..<profile.exportedKeyingMaterialLength).map { UInt8($0) }
        let keys = try #require(SRTPKeyingMaterial(exported: material, profile: profile))
        var client = try SRTPSession(profile: profile, key: keys.clientWrite, direction: .outbound)
        var server = try SRTPSession(profile: profile, key: keys.serverInbound, direction: .inbound)
        let (_, packet) = Packet.run(Packet.protectRTP, &client, SRTPVectors.rtp)
        #expect(Packet.run(Packet.unprotectRTP, &server, packet, spare: 0) == (.ok, SRTPVectors.rtp))
    }
}

import Crypto
import Foundation
import ParleyCore
import ParleyPush
import Testing

@Suite("APNs provider token (JWT, ES256)")
struct APNsTokenTests {
    let key = P256.Signing.PrivateKey()

    /// The three parts of a compact JWS, decoded.
    func parts(_ jwt: String) throws -> (header: [String: Any], claims: [String: Any], signingInput: String, signature: Data) {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3)
        func decode(_ text: String) throws -> Data {
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"), "base64url without padding")
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            return try #require(Data(base64Encoded: base64))
        }
        let header = try #require(try JSONSerialization.jsonObject(with: decode(pieces[0])) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: decode(pieces[1])) as? [String: Any])
        return (header, claims, pieces[0] + "." + pieces[1], try decode(pieces[2]))
    }

    @Test("is an ES256 JWS with kid, iss and iat whose raw r‖s signature verifies with the key's public half")
    func verifiesWithThePublicKey() throws {
        let issued = Date(timeIntervalSince1970: 1_790_000_000.7)
        let token = try APNsToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: issued, with: key)
        let (header, claims, signingInput, signature) = try parts(token.jwt)

        #expect(header.count == 2 && header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG")
        #expect(claims.count == 2 && claims["iss"] as? String == "DEF123GHIJ" && claims["iat"] as? Int == 1_790_000_000)
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_790_000_000))
        #expect(signature.count == 64)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(key.publicKey.isValidSignature(ecdsa, for: Data(signingInput.utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(ecdsa, for: Data(signingInput.utf8)))
        #expect(!key.publicKey.isValidSignature(ecdsa, for: Data((signingInput + "x").utf8)))
    }

    @Test("is reused for just under 50 minutes, then signed anew")
    func reusedThenRenewed() throws {
        let clock = ManualWallClock()
        let cache = APNsTokenCache(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clock: clock)
        let first = try cache.current()
        clock.advance(by: 49 * 60 + 59)
        #expect(try cache.current() == first)
        #expect(cache.issuedCount == 1)

        clock.advance(by: 1)
        let second = try cache.current()
        #expect(second != first)
        #expect(second.issuedAt == first.issuedAt.addingTimeInterval(50 * 60))
        #expect(cache.issuedCount == 2)
    }

    @Test("is signed anew at once when APNs rejects it, but only the rejected one is dropped")
    func renewedAfterRejection() throws {
        let cache = APNsTokenCache(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clock: ManualWallClock())
        let first = try cache.current()
        cache.renew(rejected: first)
        let second = try cache.current()
        #expect(second != first, "ECDSA signatures are randomised, so even a same-second token differs")

        cache.renew(rejected: first)   // a late rejection of the old token, from a concurrent push
        #expect(try cache.current() == second)
        #expect(cache.issuedCount == 2)
    }

    @Test("reads the key from Apple's .p8 (PKCS#8 PEM) and refuses files that are not P-256 keys")
    func loadsTheP8File() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let p8 = directory.appendingPathComponent("AuthKey.p8")
        try Data(key.pemRepresentation.utf8).write(to: p8)
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let cache = try APNsTokenCache(keyFile: p8.path, keyID: "K", teamID: "T")
        let (_, _, signingInput, signature) = try parts(try cache.current().jwt)
        #expect(key.publicKey.isValidSignature(try .init(rawRepresentation: signature), for: Data(signingInput.utf8)))

        let p384 = directory.appendingPathComponent("p384.p8")
        try Data(P384.Signing.PrivateKey().pemRepresentation.utf8).write(to: p384)
        #expect(throws: APNsKeyError.notP256(path: p384.path)) { try APNsTokenCache(keyFile: p384.path, keyID: "K", teamID: "T") }
        let missing = directory.appendingPathComponent("missing.p8").path
        #expect(throws: APNsKeyError.unreadable(path: missing)) { try APNsTokenCache(keyFile: missing, keyID: "K", teamID: "T") }
    }

    func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("apns-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

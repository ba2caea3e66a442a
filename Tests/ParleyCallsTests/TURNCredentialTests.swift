import Foundation
import ParleyCore
import Testing

@testable import ParleyCalls

/// The TURN REST API credential coturn's `use-auth-secret` recomputes, against values computed
/// independently with Python's standard library:
///   base64.b64encode(hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest())
@Suite struct TURNCredentialTests {
    @Test("username is <expiry>:<user>, password base64(HMAC-SHA1(secret, username))", arguments: [
        // secret, expiry (unix s), user id, HMAC-SHA1 in hex → base64
        // "north-wind-0123", "1795352400:usr_01ann": e968b953dc186360ab11da3573db51f541d4dcc9
        ("north-wind-0123", 1_795_352_400, "usr_01ann", "6Wi5U9wYY2CrEdo1c9tR9UHU3Mk="),
        // "parley-turn-secret", "1700000000:42": 5ad01de5176235187c6b60cd9f9c9ca7d4af8cb9
        ("parley-turn-secret", 1_700_000_000, "42", "WtAd5RdiNRh8a2DNn5ycp9SvjLk="),
    ])
    func knownVectors(secret: String, expiry: Int, user: String, password: String) {
        let credential = TURNCredential(user: UserID(rawValue: user), expiry: Date(timeIntervalSince1970: TimeInterval(expiry)), secret: secret)
        #expect(credential.username == "\(expiry):\(user)")
        #expect(credential.password == password)
    }

    @Test func aFractionalExpiryIsCutToWholeSeconds() {
        let credential = TURNCredential(user: UserID(rawValue: "42"), expiry: Date(timeIntervalSince1970: 1_700_000_000.9), secret: "parley-turn-secret")
        #expect(credential.username == "1700000000:42")
        #expect(credential.password == "WtAd5RdiNRh8a2DNn5ycp9SvjLk=")
    }

    @Test func theIssuerSignsForEachUserUntilNowPlusTheTTL() throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))
        let issuer = try ICEServerIssuer(settings: TURNSettings(
            uris: ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"],
            sharedSecret: "north-wind-0123", ttlSeconds: 3600), clock: clock)
        let servers = issuer.servers(for: UserID(rawValue: "usr_01ann"))
        #expect(servers.ttlSeconds == 3600)
        #expect(servers.iceServers == [.init(urls: ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"],
                                             username: "1795352400:usr_01ann", credential: "6Wi5U9wYY2CrEdo1c9tR9UHU3Mk=")])
        clock.advance(by: 60)
        #expect(issuer.servers(for: UserID(rawValue: "usr_01ann")).iceServers.first?.username == "1795352460:usr_01ann")
        #expect(issuer.servers(for: UserID(rawValue: "bo")).iceServers.first?.username == "1795352460:bo")
    }

    @Test func withoutURIsThereIsNoTURN() {
        let servers = ICEServerIssuer.disabled.servers(for: UserID(rawValue: "usr_01ann"))
        #expect(servers == ICEServers(iceServers: [], ttlSeconds: 0))
    }

    @Test func aMisconfigurationIsRefusedAtStart() {
        let clock = ManualWallClock()
        #expect(throws: ParleyError.self) {   // coturn would refuse every credential
            try ICEServerIssuer(settings: TURNSettings(uris: ["turn:t.example:3478"], sharedSecret: ""), clock: clock)
        }
        #expect(throws: ParleyError.self) {
            try ICEServerIssuer(settings: TURNSettings(uris: ["stun:t.example:3478"], sharedSecret: "s"), clock: clock)
        }
        #expect(throws: ParleyError.self) {
            try ICEServerIssuer(settings: TURNSettings(uris: ["turn:t.example:3478"], sharedSecret: "s", ttlSeconds: 5), clock: clock)
        }
    }
}

import Foundation
import ParleyPush
import Testing

@Suite("APNs requests: path and headers")
struct APNsRequestTests {
    let token = try! APNsToken.sign(keyID: "K", teamID: "T", issuedAt: Date(timeIntervalSince1970: 0), with: .init())
    let target = PushTarget(token: "0a1b", bundleID: "app.parley.ios", environment: .production)

    func headers(_ request: APNsRequest) -> [String] { request.headers.map { "\($0.name): \($0.value)" } }

    @Test("a VoIP push goes to <bundle id>.voip, expiring never-stored by default")
    func voip() {
        let request = APNsRequest(message: PushMessage(kind: .voip, payload: Data("{}".utf8)), target: target,
                                  baseURL: "https://api.push.apple.com", providerToken: token)
        #expect(request.url == "https://api.push.apple.com/3/device/0a1b")
        #expect(headers(request) == [
            "authorization: bearer \(token.jwt)", "apns-push-type: voip", "apns-topic: app.parley.ios.voip",
            "apns-priority: 10", "apns-expiration: 0", "content-type: application/json",
        ])
        #expect(request.body == Data("{}".utf8))
    }

    @Test("an alert goes to the bundle id, with its priority, expiration and collapse id")
    func alert() {
        let message = PushMessage(kind: .alert, payload: Data("{}".utf8), priority: 5,
                                  expiration: Date(timeIntervalSince1970: 1_790_000_000.9), collapseID: "dialog-42")
        let request = APNsRequest(message: message, target: target, baseURL: "https://x", providerToken: token)
        #expect(headers(request) == [
            "authorization: bearer \(token.jwt)", "apns-push-type: alert", "apns-topic: app.parley.ios",
            "apns-priority: 5", "apns-expiration: 1790000000", "apns-collapse-id: dialog-42", "content-type: application/json",
        ])
    }

    @Test("the host follows the target's environment unless a URL is configured")
    func hosts() {
        var configuration = APNsConfiguration(keyFile: "k.p8", keyID: "K", teamID: "T", bundleID: "b")
        #expect(configuration.baseURL(for: .sandbox) == "https://api.sandbox.push.apple.com")
        #expect(configuration.baseURL(for: .production) == "https://api.push.apple.com")
        configuration.url = "https://127.0.0.1:8443/"
        #expect(configuration.baseURL(for: .production) == "https://127.0.0.1:8443")
    }

    @Test("only hex tokens go into a path", arguments: [("0a1B", true), ("", false), ("0a/b", false), ("0a1b?x", false), ("é1", false)])
    func tokens(token: String, wellFormed: Bool) {
        #expect(APNsRequest.isWellFormed(token: token) == wellFormed)
    }
}

import Crypto
import Foundation
import ParleyPush
import ParleyTestSupport
import Testing

/// A provider key of our own (written as Apple's `.p8`), the APNs stand-in that trusts its public
/// half, and clients pointed at the stand-in. Every test gets fresh ones.
struct APNsHarness {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let bundleID = "app.parley.ios"

    let directory: URL
    let key: P256.Signing.PrivateKey
    let keyFile: String
    let standIn: APNsStandIn

    /// Runs `body` with a fresh harness, then stops the stand-in and removes the key.
    static func run<T>(_ body: (APNsHarness) async throws -> T) async throws -> T {
        let directory = try makeTemporaryDirectory(prefix: "apns-key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = P256.Signing.PrivateKey()
        let keyFile = try writeP8(key, in: directory, name: "AuthKey_\(keyID).p8")
        let standIn = try await APNsStandIn.start(publicKeyPEM: key.publicKey.pemRepresentation,
                                                  keyID: keyID, teamID: teamID, bundleID: bundleID)
        defer { standIn.stop() }
        return try await body(APNsHarness(directory: directory, key: key, keyFile: keyFile, standIn: standIn))
    }

    /// Writes a key as Apple hands one out: PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    static func writeP8(_ key: P256.Signing.PrivateKey, in directory: URL, name: String) throws -> String {
        let file = directory.appendingPathComponent(name)
        try Data(key.pemRepresentation.utf8).write(to: file)
        return file.path
    }

    /// A configuration for the stand-in, with short backoffs so retries fit in a test.
    func configuration(keyFile: String? = nil, initialBackoff: TimeInterval = 0.1,
                       maxRetryWindow: TimeInterval = 30) -> APNsConfiguration {
        APNsConfiguration(keyFile: keyFile ?? self.keyFile, keyID: Self.keyID, teamID: Self.teamID, bundleID: Self.bundleID,
                          environment: .sandbox, url: standIn.url, caFile: standIn.caFile,
                          maxRetryWindow: maxRetryWindow, initialBackoff: initialBackoff)
    }

    /// Runs `body` with a client for `configuration`, and shuts the client down after.
    func withClient<T>(_ configuration: APNsConfiguration? = nil, _ body: (APNsClient) async throws -> T) async throws -> T {
        let client = try APNsClient(configuration: configuration ?? self.configuration())
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// A device token as APNs hands them out: 32 random bytes in hex.
    static func deviceToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    static func target(_ token: String = deviceToken()) -> PushTarget {
        PushTarget(token: token, bundleID: bundleID, environment: .sandbox)
    }

    static func payload(_ json: String = #"{"aps":{"alert":{"title":"Ada","body":"hello"}}}"#) -> Data {
        Data(json.utf8)
    }
}

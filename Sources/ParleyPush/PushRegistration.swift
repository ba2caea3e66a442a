import Foundation
import ParleyCore

/// `PUT /v1/me/push`: a device's tokens, checked before anything is stored.
public struct PushRegistration: Sendable, Decodable {
    public var alertToken: String?
    public var voipToken: String?
    public var bundleId: String
    public var environment: String

    public init(alertToken: String?, voipToken: String?, bundleId: String, environment: String) {
        self.alertToken = alertToken
        self.voipToken = voipToken
        self.bundleId = bundleId
        self.environment = environment
    }

    /// The device row this registration makes, or the `400` that says what is wrong with it.
    /// Tokens are hex as the app gets them from `Data` (APNs' are 32 bytes today; up to 100
    /// bytes are taken, as Apple may lengthen them), stored lower-case.
    public func validated(session: SessionID, user: UserID, bundleID configured: String) throws -> PushDevice {
        let alert = try alertToken.map { try Self.token($0, field: "alertToken") }
        let voip = try voipToken.map { try Self.token($0, field: "voipToken") }
        guard alert != nil || voip != nil else {
            throw ParleyError(.badRequest, code: "missing_field", "alertToken or voipToken is required")
        }
        guard let environment = APNsEnvironment(rawValue: environment) else {
            throw ParleyError(.badRequest, code: "invalid_environment", "environment is sandbox or production")
        }
        guard bundleId == configured else {
            throw ParleyError(.badRequest, code: "unknown_bundle_id", "This server pushes to the app \(configured) only")
        }
        return PushDevice(sessionID: session, userID: user, alertToken: alert, voipToken: voip, bundleID: configured,
                          environment: environment)
    }

    static func token(_ text: String, field: String) throws -> String {
        let token = text.lowercased()
        guard (64...200).contains(token.count), token.count.isMultiple(of: 2),
              token.allSatisfy({ $0.isHexDigit && $0.isASCII }) else {
            throw ParleyError(.badRequest, code: "invalid_token", "\(field) is the device token in hex (64 characters)")
        }
        return token
    }
}

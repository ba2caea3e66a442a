import Foundation
import ParleyCore

/// A signed-in device's APNs tokens: the alert token (UIApplication's remote notifications) and
/// the VoIP token (PushKit), for the app `bundleID` in `environment`.
public struct PushDevice: Sendable, Equatable {
    public var sessionID: SessionID
    public var userID: UserID
    public var alertToken: String?
    public var voipToken: String?
    public var bundleID: String
    public var environment: APNsEnvironment

    public init(sessionID: SessionID, userID: UserID, alertToken: String?, voipToken: String?, bundleID: String,
                environment: APNsEnvironment) {
        self.sessionID = sessionID
        self.userID = userID
        self.alertToken = alertToken
        self.voipToken = voipToken
        self.bundleID = bundleID
        self.environment = environment
    }

    /// Where this device's pushes of `kind` go, if it registered a token for them.
    public func target(for kind: PushKind) -> PushTarget? {
        guard let token = kind == .voip ? voipToken : alertToken else { return nil }
        return PushTarget(token: token, bundleID: bundleID, environment: environment)
    }
}

/// What a user wants to be told about while their app is closed.
public struct NotificationSettings: Sendable, Equatable, Codable {
    /// New messages (alert pushes).
    public var messages = true
    /// Friend requests (alert pushes).
    public var friendRequests = true
    /// Incoming calls (VoIP pushes) and missed calls (alert pushes).
    public var calls = true
    /// The message text in the alert; off shows "New message" only.
    public var previews = true

    public init() {}
}

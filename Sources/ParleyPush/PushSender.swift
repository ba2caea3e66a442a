import Foundation

/// Which APNs a token belongs to: a development build's tokens work only with the sandbox.
public enum APNsEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox
    case production
}

/// What kind of push: a VoIP push (PushKit, handed to CallKit) or an alert the user sees.
public enum PushKind: String, Sendable, Hashable {
    /// `apns-push-type: voip`, topic `<bundle id>.voip`.
    case voip
    /// `apns-push-type: alert`, topic `<bundle id>`.
    case alert
}

/// One device to push to: an APNs device token (hex) and the app it belongs to.
public struct PushTarget: Sendable, Hashable {
    public var token: String
    public var bundleID: String
    public var environment: APNsEnvironment

    public init(token: String, bundleID: String, environment: APNsEnvironment) {
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
    }
}

/// One notification, as APNs takes it: the JSON payload and the headers that go with it.
public struct PushMessage: Sendable {
    public var kind: PushKind
    /// The JSON body (`{"aps": {...}, ...}`), at most 4 KiB for alerts, 5 KiB for VoIP.
    public var payload: Data
    /// `apns-priority`: 10 delivers at once, 5 when convenient.
    public var priority: Int
    /// `apns-expiration` as a time; nil is 0: deliver now or never.
    public var expiration: Date?
    /// `apns-collapse-id`: a later push with the same id replaces an undelivered one.
    public var collapseID: String?
    /// Not worth sending after this (a VoIP push for a ring that has ended): no first try and no
    /// retry past it; the outcome is then `.expired`.
    public var deadline: Date?
    /// When the event behind the push happened (for latency figures).
    public var createdAt: Date

    public init(kind: PushKind, payload: Data, priority: Int = 10, expiration: Date? = nil, collapseID: String? = nil,
                deadline: Date? = nil, createdAt: Date = Date()) {
        self.kind = kind
        self.payload = payload
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.deadline = deadline
        self.createdAt = createdAt
    }
}

/// How one push ended.
public enum PushOutcome: Sendable, Equatable {
    /// APNs took it (200), with its `apns-id`.
    case delivered(apnsID: String?)
    /// The token is no good any more (410, or 400 `BadDeviceToken` / `DeviceTokenNotForTopic`,
    /// `Unregistered`): forget it.
    case tokenGone(reason: String)
    /// APNs refused it for another reason, or it could not be sent in the time allowed.
    case failed(reason: String)
    /// Its deadline passed before it could be delivered; it was not sent late.
    case expired
}

/// Sends pushes. The APNs provider (`APNsClient`) is the real one; tests talk to it through a
/// local APNs stand-in, never through a fake of this protocol inside the process.
public protocol PushSender: Sendable {
    func send(_ message: PushMessage, to target: PushTarget) async -> PushOutcome
    /// Closes connections; no sends after this.
    func shutdown() async
}

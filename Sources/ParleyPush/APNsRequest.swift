import Foundation

/// One request of APNs' provider API (`POST /3/device/<token>` over HTTP/2), as values: the URL and
/// the headers. Pure; ``APNsClient`` sends it.
public struct APNsRequest: Sendable, Equatable {
    public var url: String
    /// In order: `authorization`, `apns-push-type`, `apns-topic`, `apns-priority`,
    /// `apns-expiration`, `apns-collapse-id` (when set), `content-type`.
    public var headers: [Header]
    public var body: Data

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public init(message: PushMessage, target: PushTarget, baseURL: String, providerToken: APNsToken) {
        url = baseURL + "/3/device/" + target.token
        var headers = [
            Header(name: "authorization", value: "bearer " + providerToken.jwt),
            Header(name: "apns-push-type", value: message.kind.rawValue),
            Header(name: "apns-topic", value: Self.topic(for: message.kind, bundleID: target.bundleID)),
            Header(name: "apns-priority", value: String(message.priority)),
            // 0: deliver now or never (no storing for a device that is offline).
            Header(name: "apns-expiration",
                   value: String(message.expiration.map { max(0, Int($0.timeIntervalSince1970.rounded(.down))) } ?? 0)),
        ]
        if let collapseID = message.collapseID {
            headers.append(Header(name: "apns-collapse-id", value: collapseID))
        }
        headers.append(Header(name: "content-type", value: "application/json"))
        self.headers = headers
        body = message.payload
    }

    /// `apns-topic`: the bundle id for alerts, `<bundle id>.voip` for VoIP pushes.
    public static func topic(for kind: PushKind, bundleID: String) -> String {
        switch kind {
        case .voip: bundleID + ".voip"
        case .alert: bundleID
        }
    }

    /// Whether a device token can go into the path as it is: hex digits only. Anything else is
    /// refused before sending, as APNs would (`BadDeviceToken`).
    public static func isWellFormed(token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit }
    }
}

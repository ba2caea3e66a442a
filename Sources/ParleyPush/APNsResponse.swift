import Foundation

/// What APNs answered to one request, and what that means for the push. Pure: no I/O, no clock
/// except the `now` it is given for an HTTP-date `Retry-After`.
///
/// Statuses and reasons: Apple's "Handling notification responses from APNs".
public struct APNsResponse: Sendable, Equatable {
    public var status: Int
    /// The `apns-id` header: APNs' id of the notification (ours, when we sent one).
    public var apnsID: String?
    /// The `reason` of the JSON error body (`{"reason": "BadDeviceToken"}`).
    public var reason: String?
    /// `Retry-After`, in seconds from now.
    public var retryAfter: TimeInterval?

    public init(status: Int, apnsID: String? = nil, reason: String? = nil, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// Reads the parts of a response: the JSON body's `reason`, and `Retry-After` as seconds or an
    /// HTTP-date (RFC 9110 §10.2.3).
    public init(status: Int, apnsID: String?, body: Data, retryAfter header: String?, now: Date) {
        struct ErrorBody: Decodable { var reason: String? }
        self.init(status: status, apnsID: apnsID,
                  reason: (try? JSONDecoder().decode(ErrorBody.self, from: body))?.reason,
                  retryAfter: header.flatMap { Self.seconds(retryAfter: $0, now: now) })
    }

    /// Reasons that mean the device token is no use for this app any more.
    public static let goneReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic", "Unregistered"]
    /// Reasons that mean the provider token (the JWT) must be signed again.
    public static let providerTokenReasons: Set<String> = ["ExpiredProviderToken", "InvalidProviderToken"]

    /// What to do about it.
    public var verdict: APNsVerdict {
        let reason = self.reason ?? "HTTP \(status)"
        switch status {
        case 200:
            return .delivered(apnsID: apnsID)
        case 410:
            return .tokenGone(reason: self.reason ?? "Unregistered")
        case 403 where Self.providerTokenReasons.contains(reason):
            return .renewProviderToken(reason: reason)
        case 429, 500...599:
            return .retry(reason: reason, after: retryAfter)
        case _ where Self.goneReasons.contains(reason):
            return .tokenGone(reason: reason)
        default:
            return .failed(reason: reason)
        }
    }

    /// `Retry-After` in seconds from `now`: delta-seconds or an IMF-fixdate; nil when neither.
    static func seconds(retryAfter header: String, now: Date) -> TimeInterval? {
        let value = header.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// The meaning of one APNs answer for the push that got it.
public enum APNsVerdict: Sendable, Equatable {
    /// 200: APNs took it.
    case delivered(apnsID: String?)
    /// 410, or a reason saying the token is bad or not this app's: forget the token.
    case tokenGone(reason: String)
    /// 403 `ExpiredProviderToken` / `InvalidProviderToken`: sign a new JWT and try once more.
    case renewProviderToken(reason: String)
    /// 429 or 5xx: try again later (after `after` seconds when APNs said so).
    case retry(reason: String, after: TimeInterval?)
    /// Any other refusal: the push itself is wrong, trying again will not help.
    case failed(reason: String)
}

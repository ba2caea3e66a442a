import Foundation

/// What the APNs provider has done since it started, for `/admin/status` and `/metrics`.
public struct APNsStats: Sendable, Equatable, Codable {
    /// Pushes handed to ``APNsClient/send(_:to:)``.
    public var sent: Int = 0
    /// HTTP/2 requests made to APNs, retries included.
    public var requests: Int = 0
    /// Pushes APNs took (200).
    public var delivered: Int = 0
    /// Pushes whose device token is gone (410, `BadDeviceToken`, `DeviceTokenNotForTopic`, `Unregistered`).
    public var tokenGone: Int = 0
    /// Pushes whose deadline passed before they could be delivered.
    public var expired: Int = 0
    /// Pushes refused or given up on, by reason (APNs' `reason`, `HTTP <status>`, `ConnectionError`, …).
    public var failedByReason: [String: Int] = [:]
    /// Requests that repeated an earlier one (after 429, 5xx, a connection error or a renewed JWT).
    public var retried: Int = 0
    /// Provider tokens (JWTs) signed.
    public var providerTokensIssued: Int = 0
    /// Seconds from the event (``PushMessage/createdAt``) to APNs' 200, median and 99th percentile
    /// of the last ``latencySamples`` deliveries; nil before the first.
    public var latencyP50: TimeInterval?
    public var latencyP99: TimeInterval?
    /// How many deliveries the percentiles are taken over (the most recent, at most 1024).
    public var latencySamples: Int = 0

    /// Pushes that failed, all reasons together.
    public var failed: Int { failedByReason.values.reduce(0, +) }

    public init() {}
}

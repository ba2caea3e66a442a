import ParleyPush

/// The push figures of `/admin/status`: whether APNs is configured, and what the provider has
/// done since start. All zeros while push is off.
public struct PushStats: Sendable, Equatable, Encodable {
    public var enabled: Bool
    public var sent: Int
    public var delivered: Int
    public var failed: Int
    public var failedByReason: [String: Int]
    public var retried: Int
    public var tokensGone: Int
    public var expired: Int
    /// Seconds from the event to APNs' acceptance, over the recent deliveries; nil before any.
    public var latencyP50Seconds: Double?
    public var latencyP99Seconds: Double?

    public init(enabled: Bool, _ stats: APNsStats) {
        self.enabled = enabled
        sent = stats.sent
        delivered = stats.delivered
        failed = stats.failed
        failedByReason = stats.failedByReason
        retried = stats.retried
        tokensGone = stats.tokenGone
        expired = stats.expired
        latencyP50Seconds = stats.latencyP50
        latencyP99Seconds = stats.latencyP99
    }

    public static let off = PushStats(enabled: false, APNsStats())
}

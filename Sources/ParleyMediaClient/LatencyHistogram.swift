#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts of latencies in log-linear buckets, for percentiles without keeping samples: 10 µs
/// wide below 1 ms, then each bucket 4 % wider than the last up to 120 s (a bucket's geometric
/// middle is within 2 % of anything in it), and one overflow bucket from 120 s — wide enough for
/// a chat server's queueing delays under overload, not only for media.
///
/// A pure value: merge the histograms of many receivers, and subtract an earlier snapshot of the
/// same cumulative histogram to get a window (e.g. one second of a load test).
public struct LatencyHistogram: Sendable, Equatable {
    static let linearWidth = 10e-6
    static let linearBuckets = 100
    /// Where the logarithmic buckets start: the end of the linear ones, 1 ms.
    static let logStart = linearWidth * Double(linearBuckets)
    static let logRatio = 1.04
    static let overflowStart = 120.0
    static let logBuckets = Int((log(overflowStart / logStart) / log(logRatio)).rounded(.up))
    static let bucketCount = linearBuckets + logBuckets + 1

    private var buckets: [Int]
    /// Latencies recorded.
    public private(set) var count = 0

    public init() {
        buckets = []
    }

    /// Adds one latency in seconds; negative values count as 0, values from 120 s on as overflow.
    public mutating func record(_ seconds: Double) {
        if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
        buckets[Self.bucket(of: seconds)] += 1
        count += 1
    }

    /// The latency in seconds below which `p` percent (0…100) of the recorded ones lie: the
    /// middle of the bucket holding that rank (120 s for the overflow bucket). Nil when empty.
    public func percentile(_ p: Double) -> Double? {
        guard count > 0 else { return nil }
        let fraction = min(max(p.isNaN ? 0 : p, 0), 100) / 100
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, n) in buckets.enumerated() {
            seen += n
            if seen >= rank { return Self.representative(of: index) }
        }
        return Self.representative(of: Self.bucketCount - 1)
    }

    /// Adds `other`'s counts to these.
    public mutating func merge(_ other: LatencyHistogram) {
        guard !other.buckets.isEmpty else { return }
        if buckets.isEmpty { self = other; return }
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
    }

    /// What was recorded since `earlier`, an earlier snapshot of this histogram: bucket-wise
    /// differences (a bucket that shrank, i.e. not a snapshot, counts as 0).
    public func subtracting(_ earlier: LatencyHistogram) -> LatencyHistogram {
        guard !earlier.buckets.isEmpty else { return self }
        var window = LatencyHistogram()
        guard !buckets.isEmpty else { return window }
        window.buckets = zip(buckets, earlier.buckets).map { max(0, $0 - $1) }
        window.count = window.buckets.reduce(0, +)
        return window
    }

    /// Equal counts per bucket; an empty histogram equals a fresh one.
    public static func == (lhs: LatencyHistogram, rhs: LatencyHistogram) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.buckets.isEmpty || rhs.buckets.isEmpty { return lhs.count == 0 }
        return lhs.buckets == rhs.buckets
    }

    static func bucket(of seconds: Double) -> Int {
        guard seconds > 0 else { return 0 }  // negative, zero and NaN
        if seconds < logStart { return Int(seconds / linearWidth) }
        if seconds >= overflowStart { return bucketCount - 1 }  // and +infinity
        let step = Int(log(seconds / logStart) / log(logRatio))
        return linearBuckets + min(step, logBuckets - 1)
    }

    static func representative(of index: Int) -> Double {
        if index < linearBuckets { return (Double(index) + 0.5) * linearWidth }
        if index >= bucketCount - 1 { return overflowStart }
        return min(logStart * pow(logRatio, Double(index - linearBuckets) + 0.5), overflowStart)
    }
}

extension LatencyHistogram: Codable {
    private enum CodingKeys: String, CodingKey { case buckets, count }

    /// The buckets as they are (empty when nothing was recorded), so that a histogram sent as
    /// JSON from one process merges exactly into another's.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let buckets = try container.decode([Int].self, forKey: .buckets)
        guard buckets.isEmpty || buckets.count == Self.bucketCount else {
            throw DecodingError.dataCorruptedError(forKey: .buckets, in: container,
                                                   debugDescription: "\(buckets.count) buckets, not \(Self.bucketCount)")
        }
        self.init()
        self.buckets = buckets
        count = try container.decode(Int.self, forKey: .count)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(buckets, forKey: .buckets)
        try container.encode(count, forKey: .count)
    }
}

extension LatencyHistogram: CustomStringConvertible {
    /// The count and a few percentiles in milliseconds, not 336 bucket counts.
    public var description: String {
        func ms(_ p: Double) -> String { percentile(p).map { "\(($0 * 1e5).rounded() / 100)" } ?? "-" }
        return "LatencyHistogram(count: \(count), p50: \(ms(50)) ms, p99: \(ms(99)) ms, max: \(ms(100)) ms)"
    }
}

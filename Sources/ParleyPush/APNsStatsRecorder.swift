import Foundation
import Synchronization

/// Counts what ``APNsClient`` does, from any task; ``snapshot(providerTokensIssued:)`` reads it.
final class APNsStatsRecorder: Sendable {
    /// Deliveries kept for the latency percentiles.
    static let latencyWindow = 1024

    private struct State {
        var stats = APNsStats()
        var latencies: [TimeInterval] = []   // a ring of the last `latencyWindow`
        var next = 0
    }

    private let state = Mutex(State())

    func pushStarted() {
        state.withLock { $0.stats.sent += 1 }
    }

    func requestStarted(isRetry: Bool) {
        state.withLock {
            $0.stats.requests += 1
            if isRetry { $0.stats.retried += 1 }
        }
    }

    func finished(_ outcome: PushOutcome, latency: TimeInterval) {
        state.withLock { state in
            switch outcome {
            case .delivered:
                state.stats.delivered += 1
                if state.latencies.count < Self.latencyWindow {
                    state.latencies.append(latency)
                } else {
                    state.latencies[state.next] = latency
                }
                state.next = (state.next + 1) % Self.latencyWindow
            case .tokenGone: state.stats.tokenGone += 1
            case .expired: state.stats.expired += 1
            case .failed(let reason): state.stats.failedByReason[reason, default: 0] += 1
            }
        }
    }

    func snapshot(providerTokensIssued: Int) -> APNsStats {
        var (stats, latencies) = state.withLock { ($0.stats, $0.latencies) }
        stats.providerTokensIssued = providerTokensIssued
        latencies.sort()
        stats.latencySamples = latencies.count
        stats.latencyP50 = Self.percentile(0.50, of: latencies)
        stats.latencyP99 = Self.percentile(0.99, of: latencies)
        return stats
    }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ p: Double, of sorted: [TimeInterval]) -> TimeInterval? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

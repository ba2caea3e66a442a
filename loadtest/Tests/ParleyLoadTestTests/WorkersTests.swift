import Foundation
import ParleyMediaClient
import Testing
@testable import ParleyLoadTest

@Suite("Workers: calls spread over processes, their figures merged into one report")
struct WorkersTests {
    /// A worker's snapshot with `calls` calls whose receivers each saw `latencies`.
    private func snapshot(calls: Int, sent: Int, received: Int, gaps: Int, latencies: [Double],
                          jitter: [Double], setup: [Double], failures: [String: Int] = [:]) -> CallsCollector.Snapshot {
        var totals = CallsCollector.Totals()
        totals.packetsSent = sent
        totals.packetsReceived = received
        totals.packetsLost = gaps
        totals.videoFramesVerified = 30 * calls
        totals.decodeFailures = failures.isEmpty ? 0 : 1
        for latency in latencies { totals.latency.record(latency) }
        totals.audioJitter = jitter
        totals.videoFramesPerSecond = jitter.map { _ in 30 }
        totals.freezes = gaps
        totals.freezeSeconds = Double(gaps) * 0.25
        totals.videoSeconds = Double(calls) * 10
        return CallsCollector.Snapshot(totals: totals, inviteToIncoming: setup, inviteToActive: setup.map { $0 * 2 },
                                       inviteToFirstFrame: setup.map { $0 * 3 }, established: calls, ended: 0, failures: failures)
    }

    @Test func mergeAddsCountsAndKeepsEverySample() {
        let one = snapshot(calls: 2, sent: 1_000, received: 990, gaps: 4, latencies: [0.001, 0.002],
                           jitter: [0.001, 0.003], setup: [0.010, 0.020], failures: ["timed out": 1])
        let two = snapshot(calls: 3, sent: 2_000, received: 1_999, gaps: 1, latencies: [0.004, 0.050, 0.003],
                           jitter: [0.002], setup: [0.030], failures: ["timed out": 2, "refused": 1])
        let merged = CallsCollector.Snapshot.merged([one, two])
        #expect(merged.totals.packetsSent == 3_000)
        #expect(merged.totals.packetsReceived == 2_989)
        #expect(merged.totals.packetsLost == 5)
        #expect(merged.totals.videoFramesVerified == 150)
        #expect(merged.totals.freezes == 5 && merged.totals.freezeSeconds == 1.25 && merged.totals.videoSeconds == 50)
        #expect(merged.totals.audioJitter == [0.001, 0.003, 0.002])
        #expect(merged.inviteToIncoming == [0.010, 0.020, 0.030])
        #expect(merged.established == 5 && merged.callsUp == 5)
        #expect(merged.failures == ["timed out": 3, "refused": 1])
        #expect(merged.failed == 4)
        // The histograms merge bucket by bucket: the same as one histogram that saw every latency.
        var all = LatencyHistogram()
        for latency in [0.001, 0.002, 0.004, 0.050, 0.003] { all.record(latency) }
        #expect(merged.totals.latency == all)
        #expect(merged.totals.latency.percentile(100) == all.percentile(100))
        // Nothing to merge is nothing; one part is itself.
        #expect(CallsCollector.Snapshot.merged([]) == CallsCollector.Snapshot())
        #expect(CallsCollector.Snapshot.merged([one]) == one)
    }

    @Test func snapshotCrossesAPipeAsJSONExactly() throws {
        let one = snapshot(calls: 2, sent: 1_000, received: 990, gaps: 4, latencies: [0.000_5, 0.002, 3.5, 130],
                           jitter: [0.001], setup: [0.010], failures: ["x": 1])
        let line = try CallsScenario.line(one)
        #expect(line.hasPrefix("snapshot ") && !line.contains("\n"))
        let decoded = try JSONDecoder().decode(CallsCollector.Snapshot.self, from: Data(line.dropFirst("snapshot ".count).utf8))
        #expect(decoded == one)
        #expect(decoded.totals.latency.percentile(99) == one.totals.latency.percentile(99))
        // A histogram with the wrong number of buckets is refused, not misread.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LatencyHistogram.self, from: Data(#"{"buckets":[1,2,3],"count":6}"#.utf8))
        }
    }

    @Test func reportFromMergedWorkersAddsUp() {
        var options = CallsOptions()
        options.calls = 5
        options.workers = 2
        let one = snapshot(calls: 2, sent: 1_000, received: 990, gaps: 4, latencies: [0.001], jitter: [0.001], setup: [0.010])
        let two = snapshot(calls: 3, sent: 3_000, received: 2_999, gaps: 1, latencies: [0.002], jitter: [0.003], setup: [0.020])
        var timeline = CallsTimeline()
        timeline.lostPackets = 5
        let report = CallsReport(options: options, collected: .merged([one, two]), timeline: timeline)
        #expect(report.setup.established == 5 && report.setup.workers == 2)
        #expect(report.media.packetsSent == 4_000 && report.media.packetsLost == 5)
        #expect(abs(report.media.lossPercent - 0.125) < 1e-9)
        #expect(report.media.notArrivedAtEnd == 6)
        #expect(report.setupTimes.inviteToIncoming.count == 2)
        #expect(abs((report.media.audioJitterMs.mean ?? 0) - 2) < 1e-9)
        #expect(abs((report.quality?.freezePercent ?? 0) - 2.5) < 1e-9)
        #expect(report.table.contains("(2 worker processes)") == false, "no harness figures without a status window")
    }

    @Test func workersShareTheCallsWithoutOverlap() {
        var options = CallsOptions()
        options.calls = 10
        options.workers = 3
        var seen: [Int] = []
        for index in 0..<3 {
            options.workerIndex = index
            seen += options.callIndices
        }
        #expect(seen.sorted() == Array(0..<10))
        options.workerIndex = 1
        #expect(options.callIndices == [1, 4, 7])
        options.workerIndex = nil
        #expect(options.callIndices == Array(0..<10))
    }
}

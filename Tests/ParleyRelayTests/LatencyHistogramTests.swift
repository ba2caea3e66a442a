import Testing
@testable import ParleyMediaClient

/// The load test's latency percentiles: log-linear buckets, mergeable across receivers and
/// subtractable between cumulative snapshots.
@Suite struct LatencyHistogramTests {
    func histogram(_ seconds: [Double]) -> LatencyHistogram {
        var histogram = LatencyHistogram()
        for value in seconds { histogram.record(value) }
        return histogram
    }

    func expectClose(_ value: Double?, _ expected: Double, relative: Double = 0.02,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        guard let value else { Issue.record("no value", sourceLocation: sourceLocation); return }
        #expect(abs(value - expected) <= expected * relative, "\(value) vs \(expected)", sourceLocation: sourceLocation)
    }

    @Test("empty: no percentiles")
    func empty() {
        let empty = LatencyHistogram()
        #expect(empty.count == 0 && empty.percentile(50) == nil)
        #expect(empty == histogram([]))
    }

    @Test("1…100 ms: each percentile is its rank's value within 2 %")
    func percentilesOfKnownData() {
        let h = histogram((1...100).map { Double($0) / 1_000 })
        #expect(h.count == 100)
        expectClose(h.percentile(50), 0.050)
        expectClose(h.percentile(90), 0.090)
        expectClose(h.percentile(99), 0.099)
        expectClose(h.percentile(100), 0.100)
        expectClose(h.percentile(0), 0.001)
        // Order of recording does not matter.
        #expect(h == histogram((1...100).reversed().map { Double($0) / 1_000 }))
    }

    @Test("below 1 ms the buckets are 10 µs wide; from 120 s everything is overflow")
    func resolutionAndOverflow() {
        expectClose(histogram([0.000_123]).percentile(50), 0.000_125, relative: 0.05)
        expectClose(histogram([0.000_003]).percentile(50), 0.000_005)
        let skewed = histogram(Array(repeating: 0.000_2, count: 97) + [25, 300, .infinity])
        expectClose(skewed.percentile(50), 0.000_205)
        expectClose(skewed.percentile(98), 25, relative: 0.02)
        #expect(skewed.percentile(99) == 120 && skewed.percentile(100) == 120)
        let odd = histogram([-1, .nan, 0])
        #expect(odd.count == 3)
        expectClose(odd.percentile(100), 0.000_005)
    }

    @Test("merge adds counts: two halves make the whole")
    func merge() {
        var first = histogram((1...50).map { Double($0) / 1_000 })
        first.merge(histogram((51...100).map { Double($0) / 1_000 }))
        #expect(first == histogram((1...100).map { Double($0) / 1_000 }))
        var empty = LatencyHistogram()
        empty.merge(first)
        #expect(empty == first)
        first.merge(LatencyHistogram())
        #expect(first.count == 100)
    }

    @Test("subtracting an earlier snapshot leaves only what came after it")
    func subtracting() {
        var cumulative = histogram(Array(repeating: 0.001, count: 100))
        let snapshot = cumulative
        for _ in 0..<50 { cumulative.record(0.010) }
        let window = cumulative.subtracting(snapshot)
        #expect(window.count == 50)
        expectClose(window.percentile(0), 0.010)
        expectClose(window.percentile(100), 0.010)
        #expect(cumulative.percentile(50).map { $0 < 0.002 } == true, "the whole still has 1 ms at its median")
        var rebuilt = window
        rebuilt.merge(snapshot)
        #expect(rebuilt == cumulative)
        #expect(cumulative.subtracting(cumulative).count == 0)
        #expect(cumulative.subtracting(LatencyHistogram()) == cumulative)
        #expect(LatencyHistogram().subtracting(cumulative).count == 0)
    }
}

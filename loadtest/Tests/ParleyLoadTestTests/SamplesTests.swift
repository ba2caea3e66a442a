import Testing
@testable import ParleyLoadTest

@Suite("Samples and percentiles")
struct SamplesTests {
    @Test func nearestRankPercentiles() {
        let samples = Samples((1...100).map { Double($0) / 1_000 })   // 1 … 100 ms
        #expect(samples.percentile(50) == 0.050)
        #expect(samples.percentile(95) == 0.095)
        #expect(samples.percentile(99) == 0.099)
        #expect(samples.percentile(100) == 0.100)
        let summary = samples.summary
        #expect(summary.count == 100)
        #expect(summary.p50 == 50)
        #expect(summary.max == 100)
    }

    @Test func fewSamplesAndNone() {
        #expect(Samples().percentile(50) == nil)
        #expect(Samples().summary.p99 == nil)
        let three = Samples([0.3, 0.1, 0.2])
        #expect(three.percentile(50) == 0.2)
        #expect(three.percentile(99) == 0.3)
        #expect(three.percentile(1) == 0.1)
    }

    @Test func durationsInSeconds() {
        #expect(Duration.milliseconds(1_500).seconds == 1.5)
        #expect(Duration.microseconds(20).seconds == 0.000_02)
    }
}

import Testing
@testable import ParleyRelay

/// Loss and jitter as RFC 3550 Appendix A.1, A.3 and A.8 compute them.
@Suite struct RTPReceptionStatisticsTests {
    @Test("loss counts the gaps, across a sequence number wrap")
    func lossAcrossWrap() {
        var stats = RTPReceptionStatistics()
        var sequence: UInt16 = 65530
        for index in 0..<20 {
            if index != 5 && index != 12 {  // two lost, one of them after the wrap
                stats.record(ssrc: 1, sequence: sequence, timestamp: UInt32(index) * 960, arrival: UInt32(index) * 960)
            }
            sequence &+= 1
        }
        #expect(stats.received == 18)
        #expect(stats.expected == 20)
        #expect(stats.cumulativeLost == 2)
        #expect(stats.extendedHighestSequence == 65536 + 13)
    }

    @Test("jitter is zero for perfectly paced packets and grows with arrival noise")
    func jitter() {
        var steady = RTPReceptionStatistics()
        for index in 0..<100 {
            steady.record(ssrc: 1, sequence: UInt16(index), timestamp: UInt32(index) * 960, arrival: 5000 + UInt32(index) * 960)
        }
        #expect(steady.jitter == 0)

        var noisy = RTPReceptionStatistics()
        for index in 0..<400 {
            let wobble: UInt32 = index % 2 == 0 ? 0 : 480  // every other packet 10 ms late
            noisy.record(ssrc: 1, sequence: UInt16(index), timestamp: UInt32(index) * 960, arrival: UInt32(index) * 960 + wobble)
        }
        // |D| is 480 for every pair, so J converges on 480.
        #expect((470...480).contains(noisy.jitter), "\(noisy.jitter)")
    }

    @Test("a new SSRC starts the counts again")
    func newSource() {
        var stats = RTPReceptionStatistics()
        stats.record(ssrc: 1, sequence: 10, timestamp: 0, arrival: 0)
        stats.record(ssrc: 2, sequence: 500, timestamp: 0, arrival: 0)
        #expect(stats.ssrc == 2)
        #expect(stats.received == 1)
        #expect(stats.expected == 1)
    }
}

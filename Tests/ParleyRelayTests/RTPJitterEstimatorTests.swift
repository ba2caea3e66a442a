import Testing
@testable import ParleyMediaClient

/// RFC 3550 §6.4.1 interarrival jitter, as Appendix A.8 computes it, on crafted arrival times.
@Suite struct RTPJitterEstimatorTests {
    @Test("constant transit time: zero jitter, across timestamp and arrival wrap-around")
    func constantTransit() {
        var estimator = RTPJitterEstimator(clockRate: 48_000)
        var timestamp = UInt32.max - 5_000
        for _ in 0..<200 {
            estimator.record(arrival: timestamp &+ 123_456_789, timestamp: timestamp)
            timestamp &+= 960
        }
        #expect(estimator.jitter == 0)
    }

    @Test("transit alternating ±d: |D| = 2d each packet, J += (|D| − J)/16 converges to 2d")
    func alternatingTransit() {
        let d: UInt32 = 90  // 1 ms at 90 kHz
        var estimator = RTPJitterEstimator(clockRate: 90_000)
        func packet(_ index: Int) {
            let timestamp = UInt32(index * 3_000)
            let transit = 10_000 &+ (index % 2 == 0 ? d : 0 &- d)
            estimator.record(arrival: timestamp &+ transit, timestamp: timestamp)
        }
        packet(0)
        #expect(estimator.jitter == 0, "the first packet only sets the transit time")
        packet(1)
        #expect(estimator.jitter == Double(2 * d) / 16)
        packet(2)
        #expect(estimator.jitter == Double(2 * d) / 16 + (Double(2 * d) - Double(2 * d) / 16) / 16)
        for index in 3..<300 { packet(index) }
        // J_n = 2d (1 − (15/16)^(n−1)); after 299 steps it is 2d to far better than 0.1 %.
        #expect(abs(estimator.jitter - Double(2 * d)) < 0.001 * Double(2 * d), "\(estimator.jitter)")
        #expect(abs(estimator.seconds - 0.002) < 0.000_002)
    }

    @Test("arrival times in timestamp units from a clock instant")
    func arrivalUnits() {
        let origin = ContinuousClock.now
        let video = RTPJitterEstimator(clockRate: 90_000)
        #expect(video.arrival(origin + .milliseconds(1_500), since: origin) == 135_000)
        let audio = RTPJitterEstimator(clockRate: 48_000)
        #expect(audio.arrival(origin + .microseconds(20_000), since: origin) == 960)
    }
}

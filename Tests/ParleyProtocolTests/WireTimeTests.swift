import Foundation
import ParleyCore
import Testing

/// Times on the wire are written without Foundation's calendar from 1970 to 9999: the text must
/// be Foundation's, to the second, for every such time.
@Suite struct WireTimeTests {
    private static func foundation(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    @Test func theEdgesOfDaysMonthsLeapYearsAndTheRange() {
        let edges: [TimeInterval] = [
            0, 0.999, 59, 60, 86_399, 86_400,
            68_169_600, 68_255_999, 68_256_000,          // 1972-02-29, a leap day's last second, 03-01
            951_782_400, 951_868_800,                    // 2000-02-29 (a leap year of 400), 2000-03-01
            4_107_456_000, 4_107_542_400,                // 2100-02-28, 2100-03-01 (no leap day in 2100)
            1_764_151_200, 1_764_151_200.5,
            253_402_300_799, 253_402_300_799.9,          // 9999-12-31T23:59:59
        ]
        for seconds in edges {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(WireTime.string(date) == Self.foundation(date), "\(seconds)")
        }
        #expect(WireTime.string(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(WireTime.string(Date(timeIntervalSince1970: 4_107_542_400)) == "2100-03-01T00:00:00Z")
    }

    @Test func outsideTheRangeItIsFoundationsToo() {
        for seconds: TimeInterval in [-1, -0.5, -86_400 * 365, -62_135_596_800, 253_402_300_800, 253_402_300_800 * 2] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(WireTime.string(date) == Self.foundation(date), "\(seconds)")
        }
    }

    @Test func everyDayFrom1970To2200AndRandomTimesTo9999() {
        // Every day's midnight and its last second for 230 years, then 20 000 times anywhere in
        // the range, with fractions.
        for day in 0..<(230 * 366) {
            for seconds in [TimeInterval(day * 86_400), TimeInterval(day * 86_400 + 86_399)] {
                let date = Date(timeIntervalSince1970: seconds)
                #expect(WireTime.string(date) == Self.foundation(date), "\(seconds)")
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let seconds = TimeInterval(UInt64.random(in: 0..<253_402_300_800, using: &generator))
                + Double.random(in: 0..<1, using: &generator)
            let date = Date(timeIntervalSince1970: seconds)
            #expect(WireTime.string(date) == Self.foundation(date), "\(seconds)")
        }
    }
}

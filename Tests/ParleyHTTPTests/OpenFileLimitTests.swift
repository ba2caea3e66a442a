#if canImport(Glibc)
import Glibc
#endif
import ParleyApp
import Testing

/// At start Parley raises its soft open-file limit to the hard one (`OpenFileLimit`).
@Suite(.serialized) struct OpenFileLimitTests {
    #if canImport(Glibc)
    @Test func theSoftLimitIsRaisedToTheHardOne() throws {
        var limit = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let hard = limit.rlim_max == rlim_t.max ? nil : UInt64(limit.rlim_max)
        // Lowered a little first (any process may lower its own soft limit), so there is something to raise.
        limit.rlim_cur -= 1
        try #require(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let lowered = try #require(OpenFileLimit.current)

        let outcome = OpenFileLimit.raise()
        let now = try #require(OpenFileLimit.current)
        if let hard {
            #expect(now == hard)
        }
        #expect(now > lowered)
        #expect(outcome == .raised(from: lowered, to: now))
        #expect(OpenFileLimit.raise() == .unchanged(now), "a second start finds it raised")
    }
    #endif
}

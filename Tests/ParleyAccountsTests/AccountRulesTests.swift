import Foundation
import ParleyCore
import Testing

@testable import ParleyAccounts

@Suite struct AccountRulesTests {
    typealias Day = AccountRules.CalendarDate

    @Test(arguments: [
        ("2012-11-22", "2026-11-22", 14),   // the 14th birthday itself
        ("2012-11-23", "2026-11-22", 13),   // one day short
        ("2012-12-01", "2026-11-22", 13),
        ("2000-01-01", "2026-11-22", 26),
        ("2012-02-29", "2026-02-28", 13),   // leap-day birth: not yet in a common year…
        ("2012-02-29", "2026-03-01", 14),   // …but on 1 March
        ("2012-02-29", "2028-02-29", 16),
    ])
    func ageCountsWholeYears(birth: String, today: String, age: Int) throws {
        let born = try #require(Day(birth)), on = try #require(Day(today))
        #expect(AccountRules.age(born: born, on: on) == age)
    }

    @Test(arguments: ["2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "24-01-01", "2024-1-01", "2024/01/01",
                      "", "1899-12-31", "abcd-ef-gh", "2024-01-01T00:00:00Z", "２０２４-01-01"])
    func impossibleDatesAreRejected(text: String) {
        #expect(Day(text) == nil)
    }

    @Test func leapDayExistsOnlyInLeapYears() {
        #expect(Day("2024-02-29") != nil)
        #expect(Day("2000-02-29") != nil)
        #expect(Day("1900-02-29") == nil)
    }

    @Test func calendarDateOfAnInstantIsUTC() {
        // 2026-11-22T23:30:00Z is still the 22nd in UTC whatever the machine's zone.
        let instant = Date(timeIntervalSince1970: 1_795_390_200)
        #expect(Day(instant) == Day("2026-11-22"))
    }

    @Test func emailsAreNormalised() {
        #expect(AccountRules.normalizeEmail("  Ann.Lee@Example.COM \n") == "ann.lee@example.com")
    }

    @Test(arguments: ["ann@example.com", "a.b+tag@mail.example.co.uk", "x@xn--bcher-kva.example"])
    func plausibleEmailsPass(email: String) {
        #expect(AccountRules.isValidEmail(email))
    }

    @Test(arguments: ["", "ann", "ann@", "@example.com", "ann@example", "ann@@example.com", "ann @example.com",
                      "ann@exa mple.com", "ann@-example.com", "ann@example..com", "ann@example.com.",
                      String(repeating: "a", count: 65) + "@example.com"])
    func implausibleEmailsFail(email: String) {
        #expect(!AccountRules.isValidEmail(email))
    }

    @Test func passwordsAreEightTo128Characters() {
        #expect(!AccountRules.isAcceptablePassword("1234567"))
        #expect(AccountRules.isAcceptablePassword("12345678"))
        #expect(AccountRules.isAcceptablePassword(String(repeating: "x", count: 128)))
        #expect(!AccountRules.isAcceptablePassword(String(repeating: "x", count: 129)))
        #expect(AccountRules.isAcceptablePassword("пароль🙂🙂"), "characters, not bytes")
    }

    @Test func namesAreTrimmedAndBounded() {
        #expect(AccountRules.cleanName("  Ann  ") == "Ann")
        #expect(AccountRules.cleanName("   ") == nil)
        #expect(AccountRules.cleanName(String(repeating: "n", count: 65)) == nil)
    }
}

@Suite struct RateLimiterTests {
    @Test func allowsTheLimitThenAsksToWait() {
        let limiter = RateLimiter(limit: 3, window: 60)
        let start = Date(timeIntervalSince1970: 1000)
        for second in 0..<3 {
            #expect(limiter.retryAfter("k", now: start.addingTimeInterval(Double(second))) == nil)
            limiter.record("k", now: start.addingTimeInterval(Double(second)))
        }
        #expect(limiter.retryAfter("k", now: start.addingTimeInterval(10)) == 50)
        #expect(limiter.retryAfter("other", now: start.addingTimeInterval(10)) == nil)
        #expect(limiter.retryAfter("k", now: start.addingTimeInterval(60)) == nil, "the first event has left the window")
    }

    @Test func resetForgetsAKey() {
        let limiter = RateLimiter(limit: 1, window: 60)
        let now = Date()
        limiter.record("k", now: now)
        #expect(limiter.retryAfter("k", now: now) != nil)
        limiter.reset("k")
        #expect(limiter.retryAfter("k", now: now) == nil)
    }
}

@Suite struct TokenTests {
    @Test func secretTokensAre256BitsAndStoredAsDigests() throws {
        let token = SecretToken.generate()
        #expect(Base64URL.decode(token.value)?.count == 32)
        #expect(token.digest.count == 64)
        #expect(token.digest != token.value)
        #expect(SecretToken.generate() != token)
    }

    @Test func searchCursorRoundTrips() throws {
        let cursor = UserSearchCursor(nameKey: "ann lee", id: UserID(rawValue: "u-1"))
        #expect(UserSearchCursor(encoded: cursor.encoded) == cursor)
        #expect(UserSearchCursor(encoded: "not a cursor!") == nil)
        #expect(UserSearchCursor(encoded: Base64URL.encode(Array("no separator".utf8))) == nil)
    }

    @Test func accessTokensExpireOnTheInjectedClock() async throws {
        let clock = ManualWallClock()
        let tokens = await AccessTokens(secret: "s3cret-s3cret-s3cret-s3cret-s3cret", lifetime: 900, clock: clock)
        let principal = Principal(userID: .generate(), sessionID: .generate())
        let token = try await tokens.issue(for: principal)
        #expect(await tokens.verify(token) == principal)
        clock.advance(by: 899)
        #expect(await tokens.verify(token) == principal)
        clock.advance(by: 2)
        #expect(await tokens.verify(token) == nil)
    }

    @Test func accessTokensFromAnotherSecretAreRefused() async throws {
        let clock = ManualWallClock()
        let ours = await AccessTokens(secret: "ours-ours-ours-ours-ours-ours-ours", lifetime: 900, clock: clock)
        let theirs = await AccessTokens(secret: "theirs-theirs-theirs-theirs-theirs", lifetime: 900, clock: clock)
        let token = try await theirs.issue(for: Principal(userID: .generate(), sessionID: .generate()))
        #expect(await ours.verify(token) == nil)
        #expect(await ours.verify("garbage") == nil)
    }
}

@Suite struct AddressKeyTests {
    @Test("per-address limits count an IPv6 client by its /64, an IPv4 one (mapped or not) by its address")
    func ipv6CountsByItsSlash64() {
        #expect(AddressKey.of("2001:db8:1:2:aaaa::1") == AddressKey.of("2001:db8:1:2:bbbb:cccc:dddd:2"))
        #expect(AddressKey.of("2001:db8:1:2::1") == "address:2001:db8:1:2::/64")
        #expect(AddressKey.of("[2001:db8:1:2::1]") == AddressKey.of("2001:db8:1:2::9"))
        #expect(AddressKey.of("2001:db8:1:3::1") != AddressKey.of("2001:db8:1:2::1"), "the next /64 is someone else")
        #expect(AddressKey.of("::ffff:10.0.0.1") == AddressKey.of("10.0.0.1"))
        #expect(AddressKey.of("10.0.0.1") != AddressKey.of("10.0.0.2"))
        #expect(AddressKey.of(nil) == "address:unknown")
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyTestSupport
import Testing

/// Seed 003 signs people in by phone number: sign-up proved by a texted code, then number and
/// password, with the same tokens and sessions as e-mail sign-in.
@Suite struct PhoneSignInTests {
    @Test func signUpWithATextedCodeThenLogInWithNumberAndPassword() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let sent = try await client.requestPhoneCode("+1 (415) 555-2671")
            #expect(sent.status == .accepted, "\(sent.text)")
            #expect(sent["phoneNumber"] as? String == "+14155552671")
            #expect(sent["expiresIn"] as? Int == 600)
            let code = try parley.smsOutbox.latestCode(to: "+14155552671")

            let created = try await client.registerPhone("+14155552671", code: code, first: "Ann", last: "Lee")
            #expect(created.status == .created, "\(created.text)")
            #expect(created.user["name"] as? String == "Ann Lee")
            #expect(created.user["phoneNumber"] as? String == "+14155552671")
            #expect(created.user["email"] == nil)
            let access = try #require(created["accessToken"] as? String)
            let me = try await client.call(.get, "/v1/me", token: access)
            #expect(me.status == .ok)
            #expect(me.user["phoneNumber"] as? String == "+14155552671")

            // Written another way, the number is the same account.
            let login = try await client.call(.post, "/v1/auth/login", json: ["phoneNumber": "001 415 555 2671", "password": "correct horse"])
            #expect(login.status == .ok, "\(login.text)")
            #expect(login.user["id"] as? String == created.user["id"] as? String)
            let refreshed = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": login["refreshToken"] as! String])
            #expect(refreshed.status == .ok)

            let wrong = try await client.call(.post, "/v1/auth/login", json: ["phoneNumber": "+14155552671", "password": "not the password"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == "invalid_credentials")
            // The number is no e-mail address: the e-mail field does not find that account.
            let asEmail = try await client.call(.post, "/v1/auth/login", json: ["email": "phone:+14155552671", "password": "correct horse"])
            #expect(asEmail.errorCode == "invalid_credentials")

            // The code is spent, and the number now has an account.
            #expect(try await client.registerPhone("+14155552671", code: code, first: "Eve", last: "Lee").errorCode == "invalid_code")
            let again = try await client.requestPhoneCode("+14155552671")
            #expect(again.status == .conflict)
            #expect(again.errorCode == "phone_taken")
        }
    }

    @Test func aWrongCodeFiveTimesLocksThatCode() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.requestPhoneCode("+447700900123")
            let code = try parley.smsOutbox.latestCode(to: "+447700900123")
            let wrong = code == "000000" ? "000001" : "000000"
            for attempt in 1...5 {
                let reply = try await client.registerPhone("+447700900123", code: wrong, first: "Bo", last: "Park")
                #expect(reply.status == .unprocessableContent, "attempt \(attempt): \(reply.text)")
                #expect(reply.errorCode == "invalid_code", "attempt \(attempt)")
            }
            let locked = try await client.registerPhone("+447700900123", code: code, first: "Bo", last: "Park")
            #expect(locked.status == .unprocessableContent)
            #expect(locked.errorCode == "code_locked")
            #expect(try await client.call(.post, "/v1/auth/login", json: ["phoneNumber": "+447700900123", "password": "correct horse"]).status == .unauthorized)

            // A new code replaces the locked one.
            #expect(try await client.requestPhoneCode("+447700900123").status == .accepted)
            let fresh = try parley.smsOutbox.latestCode(to: "+447700900123")
            #expect(try await client.registerPhone("+447700900123", code: fresh, first: "Bo", last: "Park").status == .created)
        }
    }

    @Test func codesAreShortLivedAndRateLimited() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.requestPhoneCode("+4930901820")
            let code = try parley.smsOutbox.latestCode(to: "+4930901820")
            parley.clock.advance(by: 601)
            #expect(try await client.registerPhone("+4930901820", code: code, first: "Cy", last: "Berg").errorCode == "invalid_code")

            for _ in 2...5 { #expect(try await client.requestPhoneCode("+4930901820").status == .accepted) }
            let limited = try await client.requestPhoneCode("+4930901820")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "rate_limited")
            #expect(parley.smsOutbox.texts(to: "+4930901820").count == 5)
        }
    }

    @Test func whatIsNoNumberOrNoNameIsRefusedBeforeAnyCodeIsSpent() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let notANumber = try await client.requestPhoneCode("call me maybe")
            #expect(notANumber.status == .unprocessableContent)
            #expect(notANumber.errorCode == "invalid_phone_number")
            // Without a configured country, a national number cannot be read.
            #expect(try await client.requestPhoneCode("(415) 555-2671").errorCode == "invalid_phone_number")

            _ = try await client.requestPhoneCode("+14155550100")
            let code = try parley.smsOutbox.latestCode(to: "+14155550100")
            #expect(try await client.registerPhone("+14155550100", code: code, first: " ", last: "Lee").errorCode == "invalid_name")
            #expect(try await client.registerPhone("+14155550100", code: code, first: "Di", last: "Lee", password: "short").errorCode == "weak_password")
            #expect(try await client.registerPhone("+14155550100", code: code, first: "Di", last: "Lee").status == .created)

            let both = try await client.call(.post, "/v1/auth/login", json: ["email": "a@example.com", "phoneNumber": "+14155550100", "password": "x"])
            #expect(both.status == .badRequest)
            #expect(both.errorCode == "invalid_login")
            #expect(try await client.call(.post, "/v1/auth/login", json: ["password": "x"]).errorCode == "invalid_login")
        }
    }

    @Test func aNationalNumberIsReadInTheConfiguredCountry() async throws {
        let parley = try await TestParley.start { $0.phoneDefaultCountryCode = "44" }
        try await parley.test { client in
            let sent = try await client.requestPhoneCode("07700 900456")
            #expect(sent["phoneNumber"] as? String == "+447700900456")
        }
    }

    @Test func codesGoOutThroughAnHTTPProviderWhenConfigured() async throws {
        let provider = try await SMSProviderStandIn.start()
        defer { provider.stop() }
        let parley = try await Self.start(sendingThrough: provider)
        try await parley.test { client in
            #expect(try await client.requestPhoneCode("+14155552671").status == .accepted)
            let messages = try await provider.messages()
            #expect(messages.map(\.to) == ["+14155552671"])
            let code = try #require(messages.first.flatMap { smsCode(in: $0.body) })
            #expect(parley.smsOutbox.texts(to: "+14155552671").isEmpty)
            #expect(try await client.registerPhone("+14155552671", code: code, first: "Ann", last: "Lee").status == .created)
        }
    }

    @Test func aProviderThatRefusesIsA503NotA500() async throws {
        let provider = try await SMSProviderStandIn.start()
        defer { provider.stop() }
        let parley = try await Self.start(sendingThrough: provider, authToken: "revoked")
        try await parley.test { client in
            let reply = try await client.requestPhoneCode("+14155552671")
            #expect(reply.status == .serviceUnavailable)
            #expect(reply.errorCode == "sms_unavailable")
            #expect(try await provider.record().refused.map(\.code) == [20003])
        }
    }

    /// A Parley whose texts go to `provider` over HTTP.
    static func start(sendingThrough provider: SMSProviderStandIn, authToken: String? = nil) async throws -> TestParley {
        try await TestParley.start { config in
            config.sms.transport = "http"
            config.sms.httpURL = provider.url
            config.sms.httpAccountID = provider.accountID
            config.sms.httpAuthToken = authToken ?? provider.authToken
            config.sms.httpFrom = provider.from
        }
    }
}

extension PhoneSignInTests {
    @Test("codes texted from everywhere together have an hourly cap: distinct numbers do not get past it")
    func codesHaveAnOverallCap() async throws {
        let parley = try await TestParley.start { $0.phoneCodesPerHour = 3 }
        try await parley.test { client in
            for n in 1...3 { #expect(try await client.requestPhoneCode("+493090182\(n)").status == .accepted) }
            let limited = try await client.requestPhoneCode("+4930901829")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited", "\(limited.text)")
            #expect(parley.smsOutbox.texts(to: "+4930901829").isEmpty, "nothing was texted")
        }
    }
}

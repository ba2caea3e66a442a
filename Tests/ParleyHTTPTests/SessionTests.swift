import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct SessionTests {
    @Test func loginGivesAPairThatOpensTheAPI() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let reply = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(reply["expiresIn"] as? Int == 900)
            #expect(reply["tokenType"] as? String == "Bearer")
            #expect(reply.user["email"] as? String == "ann@example.com")
            let me = try await client.call(.get, "/v1/me", token: ann.accessToken)
            #expect(me.status == .ok)
            #expect(me.user["id"] as? String == ann.id)
        }
    }

    @Test func wrongPasswordsAndUnknownAddressesLookAlike() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let wrong = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "wrong password"])
            let unknown = try await client.call(.post, "/v1/auth/login", json: ["email": "nobody@example.com", "password": "wrong password"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == "invalid_credentials")
            #expect(unknown.bytes == wrong.bytes)
        }
    }

    @Test func accessIsRefusedWithoutAValidToken() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            for token in [nil, "", "garbage", ann.refreshToken, ann.accessToken + "x"] as [String?] {
                let reply = try await client.call(.get, "/v1/me", token: token)
                #expect(reply.status == .unauthorized)
                #expect(reply.headers[.wwwAuthenticate] == "Bearer")
            }
            parley.clock.advance(by: 901)
            let expired = try await client.call(.get, "/v1/me", token: ann.accessToken)
            #expect(expired.status == .unauthorized, "access tokens live 15 minutes")
        }
    }

    @Test func refreshRotatesAndAReplayEndsTheSession() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let first = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": ann.refreshToken])
            #expect(first.status == .ok)
            let newRefresh = try #require(first["refreshToken"] as? String)
            let newAccess = try #require(first["accessToken"] as? String)
            #expect(newRefresh != ann.refreshToken)
            #expect(try await client.call(.get, "/v1/me", token: newAccess).status == .ok)

            // The spent token comes back: someone copied it. The whole session ends.
            let replay = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": ann.refreshToken])
            #expect(replay.status == .unauthorized)
            #expect(replay.errorCode == "refresh_token_reused")
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": newRefresh]).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", token: newAccess).status == .unauthorized)

            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": "made-up"]).errorCode == "invalid_refresh_token")
        }
    }

    @Test func refreshTokensExpire() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            parley.clock.advance(by: 60 * 86_400 + 1)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": ann.refreshToken]).errorCode == "invalid_refresh_token")
        }
    }

    @Test func logoutEndsOnlyThisDevice() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let phone = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let tablet = try await client.logIn("ann@example.com")
            #expect(try await client.call(.post, "/v1/auth/logout", token: phone.accessToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/me", token: phone.accessToken).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": phone.refreshToken]).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", token: tablet.accessToken).status == .ok)

            // With only the refresh token (the access token may have expired).
            #expect(try await client.call(.post, "/v1/auth/logout", json: ["refreshToken": tablet.refreshToken]).status == .noContent)
            #expect(try await client.call(.get, "/v1/me", token: tablet.accessToken).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/logout").status == .unauthorized)
        }
    }

    @Test func repeatedFailuresAreRateLimitedPerAccount() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            for _ in 0..<5 {
                let reply = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "guess guess"])
                #expect(reply.errorCode == "invalid_credentials")
            }
            let limited = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "rate_limited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            parley.clock.advance(by: 15 * 60 + 1)
            _ = try await client.logIn("ann@example.com")
        }
    }

    @Test func attemptsAreRateLimitedPerClientAddress() async throws {
        let parley = try await TestParley.start { $0.loginAttemptsPerAddress = 4 }
        try await parley.test { client in
            for n in 0..<4 {
                let reply = try await client.call(.post, "/v1/auth/login", json: ["email": "u\(n)@example.com", "password": "guess guess"])
                #expect(reply.errorCode == "invalid_credentials")
            }
            let limited = try await client.call(.post, "/v1/auth/login", json: ["email": "u9@example.com", "password": "guess guess"])
            #expect(limited.errorCode == "rate_limited")
        }
    }
}

extension SessionTests {
    /// The token `times` refreshes down the chain from `token`.
    static func refreshed(_ token: String, times: Int, _ client: some TestClientProtocol) async throws -> String {
        var token = token
        for _ in 0..<times {
            let turned = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": token])
            token = try #require(turned["refreshToken"] as? String, "\(turned.text)")
        }
        return token
    }

    @Test("refreshes have a rate per session, and expired tokens are swept away")
    func refreshesAreBoundedAndExpiredTokensGo() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let token = try await Self.refreshed(ann.refreshToken, times: 60, client)
            let limited = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": token])
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited", "\(limited.text)")
            #expect(limited.headers[.retryAfter] != nil)
            let rows = { try await parley.parts.database.read { try $0.scalar("SELECT COUNT(*) FROM refresh_tokens", as: Int.self) } }
            #expect(try await rows() == 61, "the refused refresh stored nothing")

            parley.clock.advance(by: 3601)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": token]).status == .ok,
                    "the token refused for the rate was not spent")
            #expect(try await parley.parts.accounts.sweepExpiredTokens() == 0, "nothing has expired yet")
            let mailTokens = try await parley.parts.database.read { try $0.scalar("SELECT COUNT(*) FROM email_tokens", as: Int.self) } ?? 0
            parley.clock.advance(by: 61 * 86_400)
            #expect(try await parley.parts.accounts.sweepExpiredTokens() == 62 + mailTokens, "the refresh tokens and the sign-up mail's")
            #expect(try await rows() == 0)
        }
    }

    @Test("a copy of a refresh token that spends the session's rate does not hide the device's replay")
    func aReplayIsToldPastTheRate() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            // Someone who copied Ann's token refreshes with it, and on, until the rate is spent.
            let token = try await Self.refreshed(ann.refreshToken, times: 60, client)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": token]).status == .tooManyRequests)
            // Ann's phone presents the token it holds, spent by the copy: the session ends.
            let replay = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": ann.refreshToken])
            #expect(replay.status == .unauthorized && replay.errorCode == "refresh_token_reused", "\(replay.text)")
            parley.clock.advance(by: 3601)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": token]).status == .unauthorized,
                    "the copy's chain ended with the session")
        }
    }
}

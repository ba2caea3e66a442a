import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The password typed again to change the e-mail address or delete the account is guessed no
/// more cheaply than at login: wrong ones count against the same budget, and past it even the
/// right one waits, with no bcrypt work done.
@Suite struct PasswordGuessLimitsTests {
    @Test func wrongPasswordsOnAnEmailChangeCountAsWrongLogins() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let change = { (password: String) in
                try await client.call(.post, "/v1/me/email", json: ["email": "ann.new@example.com", "password": password], token: ann.accessToken)
            }
            for _ in 0..<5 { #expect(try await change("guess guess").errorCode == "wrong_password") }
            let limited = try await change("correct horse")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited", "\(limited.text)")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(parley.outbox.count(to: "ann.new@example.com") == 0, "no code went out")
            // One budget: logging in and deleting the account wait too.
            let login = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(login.errorCode == "rate_limited")
            #expect(try await client.call(.delete, "/v1/me", json: ["password": "correct horse"], token: ann.accessToken).errorCode == "rate_limited")

            parley.clock.advance(by: 15 * 60 + 1)   // the login window (and the access token's life)
            let again = try await client.logIn("ann@example.com")
            let asked = try await client.call(.post, "/v1/me/email", json: ["email": "ann.new@example.com", "password": "correct horse"],
                                              token: again.accessToken)
            #expect(asked.status == .accepted, "\(asked.text)")
        }
    }

    @Test func wrongPasswordsOnDeletionShareTheLoginBudget() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let delete = { (password: String) in
                try await client.call(.delete, "/v1/me", json: ["password": password], token: ann.accessToken)
            }
            for _ in 0..<3 { #expect(try await delete("guess guess").errorCode == "wrong_password") }
            for _ in 0..<2 {
                let login = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "guess guess"])
                #expect(login.errorCode == "invalid_credentials")
            }
            let limited = try await delete("correct horse")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited", "\(limited.text)")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).status == .ok, "the account is still there")

            parley.clock.advance(by: 15 * 60 + 1)
            let again = try await client.logIn("ann@example.com")
            #expect(try await client.call(.delete, "/v1/me", json: ["password": "correct horse"], token: again.accessToken).status == .noContent)
        }
    }
}

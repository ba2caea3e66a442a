import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct VerificationTests {
    /// Opening the link (as a mail scanner or a link preview would) verifies nothing: the page's
    /// button does, once.
    @Test func theMailedLinkOpensAPageWhoseButtonVerifiesOnce() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.register("Ann", "ann@example.com")
            let link = try token(inMail: try await parley.outbox.mail(to: "ann@example.com"))
            for _ in 1...2 {
                let page = try await client.call(.get, "/v1/auth/verify?token=\(link)")
                #expect(page.status == .ok)
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                #expect(page.headers[.xContentTypeOptions] == "nosniff")
                #expect(page.text.contains("action=\"/v1/auth/verify/confirm\"") && page.text.contains("value=\"\(link)\""))
            }
            let refused = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(refused.status != .ok, "still unverified after the GETs: \(refused.text)")

            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let pressed = try await client.call(.post, "/v1/auth/verify/confirm", raw: Array("token=\(link)".utf8), headers: form)
            #expect(pressed.status == .ok)
            #expect(pressed.text.contains("ann@example.com is verified"))
            let again = try await client.call(.post, "/v1/auth/verify/confirm", raw: Array("token=\(link)".utf8), headers: form)
            #expect(again.status == .badRequest)
            #expect(again.text.contains("already used or has expired"))
            #expect(try await client.call(.get, "/v1/auth/verify").status == .badRequest)
            #expect(try await client.call(.post, "/v1/auth/verify/confirm", raw: Array("x=1".utf8), headers: form).status == .badRequest)
            _ = try await client.logIn("ann@example.com")
        }
    }

    @Test func postVerifyReturnsTheUserAndRefusesBadTokens() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.register("Ann", "ann@example.com")
            let link = try token(inMail: try await parley.outbox.mail(to: "ann@example.com"))
            let bad = try await client.call(.post, "/v1/auth/verify", json: ["token": "nope"])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.errorCode == "invalid_token")
            let good = try await client.call(.post, "/v1/auth/verify", json: ["token": link])
            #expect(good.status == .ok)
            #expect(good.user["email"] as? String == "ann@example.com")
            #expect(try await client.call(.post, "/v1/auth/verify", json: ["token": link]).errorCode == "invalid_token")
        }
    }

    @Test func verificationLinksExpireAfterTwoDays() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.register("Ann", "ann@example.com")
            let link = try token(inMail: try await parley.outbox.mail(to: "ann@example.com"))
            parley.clock.advance(by: 48 * 3600 + 1)
            #expect(try await client.call(.post, "/v1/auth/verify", json: ["token": link]).errorCode == "invalid_token")
        }
    }

    @Test func resendAnswersTheSameForEveryAddress() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.register("Ann", "ann@example.com")
            _ = try await parley.outbox.mail(to: "ann@example.com")
            let known = try await client.call(.post, "/v1/auth/resend-verification", json: ["email": "ANN@example.com"])
            let unknown = try await client.call(.post, "/v1/auth/resend-verification", json: ["email": "nobody@example.com"])
            #expect(known.status == .accepted)
            #expect(unknown.status == .accepted)
            #expect(known.bytes == unknown.bytes)
            let second = try await parley.outbox.mail(to: "ann@example.com", number: 2)
            #expect(try await client.call(.post, "/v1/auth/verify", json: ["token": try token(inMail: second)]).status == .ok)
            #expect(parley.outbox.count(to: "nobody@example.com") == 0)
        }
    }
}

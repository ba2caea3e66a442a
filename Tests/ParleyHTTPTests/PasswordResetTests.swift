import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct PasswordResetTests {
    @Test func resetEndsEverySessionAndTheOldPassword() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let phone = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let laptop = try await client.logIn("ann@example.com")
            #expect(try await client.call(.post, "/v1/auth/password-reset", json: ["email": "Ann@Example.com"]).status == .accepted)
            let mail = try await parley.outbox.mail(to: "ann@example.com", number: 2)
            #expect(mail.contains("parley://password-reset?token="))
            let code = try token(inMail: mail)

            let weak = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": code, "newPassword": "short"])
            #expect(weak.errorCode == "weak_password")
            let done = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": code, "newPassword": "battery staple"])
            #expect(done.status == .noContent)

            for device in [phone, laptop] {
                #expect(try await client.call(.get, "/v1/me", token: device.accessToken).status == .unauthorized)
                #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": device.refreshToken]).status == .unauthorized)
            }
            let old = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(old.errorCode == "invalid_credentials")
            _ = try await client.logIn("ann@example.com", password: "battery staple")
            let reuse = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": code, "newPassword": "another one"])
            #expect(reuse.errorCode == "invalid_token")
        }
    }

    @Test("With the web client served, the mail links its reset screen beside the app link; without, the app link alone")
    func theMailLinksTheWebClientWhenItIsServed() async throws {
        for served in [true, false] {
            let parley = try await TestParley.start { $0.webDirectory = served ? webClientDirectory : "" }
            try await parley.test { client in
                _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
                _ = try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ann@example.com"])
                let mail = try await parley.outbox.mail(to: "ann@example.com", number: 2)   // quoted-printable undone:
                    .replacing(/=\r?\n/, with: "").replacingOccurrences(of: "=3D", with: "=")
                let links = mail.matches(of: /(?:parley|http):\/\/[^\s"<]*token=([A-Za-z0-9_-]{20,})/).map { String($0.0) }
                #expect(links.contains { $0.hasPrefix("parley://password-reset?token=") }, "\(links)")
                let web = links.filter { $0.hasPrefix("http://parley.test/#/reset?token=") }
                #expect(web.isEmpty != served, "served \(served): \(links)")
                // Both carry the one token the mail is for.
                #expect(Set(links.map { $0.split(separator: "token=").last ?? "" }).count == 1, "\(links)")
            }
        }
    }

    @Test func unknownAddressesGetTheSameAnswerAndNoMail() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let known = try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ann@example.com"])
            let unknown = try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ghost@example.com"])
            #expect(known.status == .accepted && unknown.status == .accepted)
            #expect(known.bytes == unknown.bytes)
            _ = try await parley.outbox.mail(to: "ann@example.com", number: 2)
            #expect(parley.outbox.count(to: "ghost@example.com") == 0)
        }
    }

    @Test func resetCodesExpireAfterAnHourAndOnlyTheNewestCounts() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            _ = try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ann@example.com"])
            let first = try token(inMail: try await parley.outbox.mail(to: "ann@example.com", number: 2))
            _ = try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ann@example.com"])
            let second = try token(inMail: try await parley.outbox.mail(to: "ann@example.com", number: 3))
            let stale = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": first, "newPassword": "battery staple"])
            #expect(stale.errorCode == "invalid_token")
            parley.clock.advance(by: 3601)
            let late = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": second, "newPassword": "battery staple"])
            #expect(late.errorCode == "invalid_token")
        }
    }
}

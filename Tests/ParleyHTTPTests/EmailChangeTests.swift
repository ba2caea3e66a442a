import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Changing the e-mail address: the new one proves itself with a mailed code before it counts,
/// and the old one is told.
@Suite struct EmailChangeTests {
    static func code(inMail mail: String) throws -> String {
        let match = try #require(mail.firstMatch(of: /Your Parley code: (\d{6})/), "no code in \(mail)")
        return String(match.1)
    }

    @Test func theNewAddressCountsOnlyOnceVerifiedAndTheOldOneIsTold() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            _ = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let change = { (email: String, password: String) in
                try await client.call(.post, "/v1/me/email", json: ["email": email, "password": password], token: ann.accessToken)
            }
            #expect(try await change("ann.new@example.com", "wrong horse").errorCode == "wrong_password")
            #expect(try await change("Ann@Example.com", "correct horse").errorCode == "same_email")
            #expect(try await change("bo@example.com", "correct horse").errorCode == "email_taken")
            #expect(try await change("not an address", "correct horse").errorCode == "invalid_email")

            let asked = try await change("Ann.New@example.com", "correct horse")
            #expect(asked.status == .accepted && asked["pendingEmail"] as? String == "ann.new@example.com", "\(asked.text)")
            let code = try Self.code(inMail: try await parley.outbox.mail(to: "ann.new@example.com"))

            // Not yet: the account keeps its address, and the new one signs nobody in.
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).user["email"] as? String == "ann@example.com")
            let early = try await client.call(.post, "/v1/auth/login", json: ["email": "ann.new@example.com", "password": "correct horse", "deviceName": "x"])
            #expect(early.errorCode == "invalid_credentials")
            let wrong = code == "123456" ? "654321" : "123456"
            let refused = try await client.call(.post, "/v1/me/email/confirm", json: ["code": wrong], token: ann.accessToken)
            #expect(refused.errorCode == "invalid_code")

            let confirmed = try await client.call(.post, "/v1/me/email/confirm", json: ["code": code], token: ann.accessToken)
            #expect(confirmed.status == .ok && confirmed.user["email"] as? String == "ann.new@example.com", "\(confirmed.text)")
            let notice = try await parley.outbox.mail(to: "ann@example.com", number: 2)
            #expect(notice.contains("ann.new@example.com"), "the old address is told where the account went")
            #expect(try await client.call(.post, "/v1/me/email/confirm", json: ["code": code], token: ann.accessToken).errorCode == "invalid_code",
                    "a code works once")

            _ = try await client.logIn("ann.new@example.com")
            let old = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse", "deviceName": "x"])
            #expect(old.errorCode == "invalid_credentials")
        }
    }

    @Test func wrongCodesLockTheChange() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            _ = try await client.call(.post, "/v1/me/email", json: ["email": "ann2@example.com", "password": "correct horse"], token: ann.accessToken)
            let code = try Self.code(inMail: try await parley.outbox.mail(to: "ann2@example.com"))
            let wrong = code == "123456" ? "654321" : "123456"
            var codes: [String?] = []
            for _ in 0..<5 {
                codes.append(try await client.call(.post, "/v1/me/email/confirm", json: ["code": wrong], token: ann.accessToken).errorCode)
            }
            #expect(codes == Array(repeating: "invalid_code", count: 5))
            let locked = try await client.call(.post, "/v1/me/email/confirm", json: ["code": code], token: ann.accessToken)
            #expect(locked.errorCode == "code_locked", "five wrong tries lock even the right code: \(locked.text)")
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).user["email"] as? String == "ann@example.com")
        }
    }
}

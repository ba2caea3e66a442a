import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct RegistrationTests {
    @Test func registeringCreatesAnUnverifiedAccountAndMailsTheLink() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let reply = try await client.register("Ann Lee", " Ann@Example.COM ")
            #expect(reply.status == .created)
            #expect(reply.user["email"] as? String == "ann@example.com")
            #expect(reply.user["name"] as? String == "Ann Lee")
            #expect(reply.user["relationship"] as? String == "none")
            #expect((reply.user["id"] as? String)?.isEmpty == false)
            #expect(reply.user["createdAt"] as? String == "2026-11-22T12:00:00Z")
            #expect(reply.user["password"] == nil && reply.user["passwordHash"] == nil)

            let mail = try await parley.outbox.mail(to: "ann@example.com")
            #expect(mail.contains("http://parley.test/v1/auth/verify?token="))
            #expect(mail.contains("multipart/alternative"))

            let login = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(login.status == .forbidden)
            #expect(login.errorCode == "email_not_verified")
        }
    }

    @Test(arguments: [
        ("2012-11-22", 201, nil),            // 14 today
        ("2012-11-23", 422, "too_young"),    // 14 tomorrow
        ("2020-05-05", 422, "too_young"),
        ("2030-01-01", 422, "invalid_date_of_birth"),
        ("2023-02-29", 422, "invalid_date_of_birth"),
        ("22/11/2000", 422, "invalid_date_of_birth"),
    ] as [(String, Int, String?)])
    func ageIsAtLeastFourteen(born: String, status: Int, code: String?) async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let reply = try await client.register("Kid", "kid@example.com", born: born)
            #expect(reply.status.code == status, "\(reply.text)")
            #expect(reply.errorCode == code)
        }
    }

    @Test func fieldsAreChecked() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            #expect(try await client.register("Ann", "not-an-address").errorCode == "invalid_email")
            #expect(try await client.register("Ann", "ann@example.com", password: "short").errorCode == "weak_password")
            #expect(try await client.register("Ann", "ann@example.com", password: String(repeating: "p", count: 129)).errorCode == "weak_password")
            #expect(try await client.register("   ", "ann@example.com").errorCode == "invalid_name")
            let ok = try await client.register("Ann", "ann@example.com")
            #expect(ok.status == .created)
            let again = try await client.register("Other Ann", "ANN@example.com")
            #expect(again.status == .conflict)
            #expect(again.errorCode == "email_taken")
        }
    }

    @Test func multipartRegistrationTakesAnAvatar() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let boundary = "----ParleyBoundary7MA4YWxk"
            var body: [UInt8] = []
            func field(_ name: String, _ value: String) {
                body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
            }
            field("name", "Bo Chen")
            field("email", "bo@example.com")
            field("password", "correct horse")
            field("dateOfBirth", "1999-09-09")
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"me.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            body += TestImages.png
            body += Array("\r\n--\(boundary)--\r\n".utf8)
            let reply = try await client.call(
                .post, "/v1/auth/register", raw: body, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"])
            #expect(reply.status == .created, "\(reply.text)")
            let avatarUrl = try #require(reply.user["avatarUrl"] as? String)
            #expect(avatarUrl.hasPrefix("http://parley.test/v1/avatars/"))

            let link = try token(inMail: try await parley.outbox.mail(to: "bo@example.com"))
            #expect(try await client.call(.post, "/v1/auth/verify", json: ["token": link]).status == .ok)
            let bo = try await client.logIn("bo@example.com")
            let image = try await client.call(.get, String(avatarUrl.dropFirst("http://parley.test".count)), token: bo.accessToken)
            #expect(image.status == .ok)
            #expect(image.bytes == TestImages.png)
            #expect(image.headers[.contentType] == "image/png")
            let anonymous = try await client.call(.get, String(avatarUrl.dropFirst("http://parley.test".count)))
            #expect(anonymous.status == .unauthorized)
            // AsyncImage cannot set headers: the access token may ride in the query instead.
            let byQuery = try await client.call(.get, String(avatarUrl.dropFirst("http://parley.test".count)) + "?token=\(bo.accessToken)")
            #expect(byQuery.status == .ok && byQuery.bytes == TestImages.png)
        }
    }

    @Test func multipartWithoutAFieldOrWithAFakeImageIsRefused() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let boundary = "b0undary"
            let missing = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn\r\n--\(boundary)--\r\n".utf8)
            let reply = try await client.call(.post, "/v1/auth/register", raw: missing,
                                              headers: [.contentType: "multipart/form-data; boundary=\(boundary)"])
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "missing_field")

            var fake: [UInt8] = []
            for (name, value) in [("name", "Ann"), ("email", "ann@example.com"), ("password", "correct horse"), ("dateOfBirth", "2000-01-01")] {
                fake += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
            }
            fake += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"x.png\"\r\nContent-Type: image/png\r\n\r\nnot an image\r\n--\(boundary)--\r\n".utf8)
            let refused = try await client.call(.post, "/v1/auth/register", raw: fake,
                                                headers: [.contentType: "multipart/form-data; boundary=\(boundary)"])
            #expect(refused.status == .unsupportedMediaType)
            #expect(refused.errorCode == "unsupported_media_type")
            #expect(try await client.register("Ann", "ann@example.com").status == .created, "nothing was stored by the refused attempt")
        }
    }

    /// A client past the registration limit is refused before its form is read: an avatar past
    /// the size limit would otherwise be read (and refused as too large) first.
    @Test func aLimitedClientsFormIsRefusedBeforeItsAvatarIsRead() async throws {
        let parley = try await TestParley.start { $0.registrationsPerAddressPerHour = 1 }
        try await parley.test { client in
            #expect(try await client.register("Ann", "ann@example.com").status == .created)
            let boundary = "b0undary"
            var form: [UInt8] = []
            for (name, value) in [("name", "Bo"), ("email", "bo@example.com"), ("password", "correct horse"), ("dateOfBirth", "2000-01-01")] {
                form += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
            }
            form += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"me.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            form += UploadTests.png(padding: 6 << 20) + Array("\r\n--\(boundary)--\r\n".utf8)
            let reply = try await client.call(.post, "/v1/auth/register", raw: form,
                                              headers: [.contentType: "multipart/form-data; boundary=\(boundary)"])
            #expect(reply.status == .tooManyRequests && reply.errorCode == "rate_limited", "\(reply.text)")
            #expect(reply.headers[.retryAfter] != nil)
        }
    }

    /// An address nobody verifies is freed a week later (someone may have typed another's
    /// address); a verified account stays.
    @Test func unverifiedAccountsExpireAndFreeTheirAddress() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            #expect(try await client.register("Typo", "bo@example.com").status == .created)
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            #expect(try await client.register("Bo", "bo@example.com").errorCode == "email_taken")
            parley.clock.advance(by: 7 * 24 * 3600 - 60)
            #expect(try await parley.parts.accounts.sweepUnverified() == 0, "not a week yet")
            parley.clock.advance(by: 120)
            #expect(try await parley.parts.accounts.sweepUnverified() == 1)
            #expect(try await client.register("Bo", "bo@example.com").status == .created, "the address is free again")
            _ = try await client.logIn("ann@example.com")
        }
    }
}

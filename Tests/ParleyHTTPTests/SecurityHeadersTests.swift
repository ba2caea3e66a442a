import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What every answer says to a browser, and what uploaded bytes are served with.
@Suite struct SecurityHeadersTests {
    @Test func answersSayNosniffAndStoredFilesRunNothing() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let health = try await client.call(.get, "/health")
            #expect(health.headers[.xContentTypeOptions] == "nosniff")
            #expect(health.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(try await client.call(.get, "/v1/me").headers[.xContentTypeOptions] == "nosniff", "errors too")

            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let avatar = try await client.call(.put, "/v1/me/avatar", raw: TestImages.png, token: ann.accessToken, headers: [.contentType: "image/png"])
            let url = try #require(avatar.user["avatarUrl"] as? String)
            let path = String(url.dropFirst("http://parley.test".count))
            let file = try await client.call(.get, path, token: ann.accessToken)
            #expect(file.status == .ok && file.headers[.contentType] == "image/png")
            let name = try #require(path.split(separator: "/").last)
            #expect(file.headers[.contentDisposition] == "inline; filename=\"\(name)\"")
            #expect(file.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
            #expect(file.headers[.xContentTypeOptions] == "nosniff")

            // The verification page keeps its own policy.
            let page = try await client.call(.get, "/v1/auth/verify?token=nonsense")
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self'") == true)
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyTestSupport
import Testing

/// The whole account life over real sockets: Parley's HTTP server, and its mail through a real
/// SMTP server (aiosmtpd) whose Maildir the test reads.
@Suite struct LiveMailFlowTests {
    @Test func registerVerifyLoginRefreshAndResetOverRealSMTP() async throws {
        let smtp = try await LiveSMTPServer.start()
        defer { smtp.stop() }
        let parley = try await TestParley.start { config in
            config.mail.transport = "smtp"
            config.mail.smtpHost = "127.0.0.1"
            config.mail.smtpPort = smtp.port
            config.mail.smtpTLS = "starttls-if-available"
        }
        try await parley.test(.live) { client in
            #expect(try await client.register("Ann Lee", "ann@example.com").status == .created)
            let welcome = try await Self.mail(number: 1, from: smtp)
            #expect(welcome.contains("To: \"Ann Lee\" <ann@example.com>") || welcome.contains("To: Ann Lee <ann@example.com>"))
            #expect(welcome.contains("Subject: Confirm your Parley address"))
            let link = try #require(welcome.firstMatch(of: /http:\/\/parley\.test(\/v1\/auth\/verify\?token=[A-Za-z0-9_-]+)/)).1

            let page = try await client.call(.get, String(link))
            #expect(page.status == .ok)
            let pageToken = try #require(page.text.firstMatch(of: /name="token" value="([A-Za-z0-9_-]+)"/)).1
            let pressed = try await client.call(.post, "/v1/auth/verify/confirm", raw: Array("token=\(pageToken)".utf8),
                                                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(pressed.text.contains("ann@example.com is verified"))

            let phone = try await client.logIn("ann@example.com")
            let refreshed = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": phone.refreshToken])
            #expect(refreshed.status == .ok)
            let laptop = try await client.logIn("ann@example.com")

            #expect(try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ann@example.com"]).status == .accepted)
            let reset = try await Self.mail(number: 2, from: smtp)
            #expect(reset.contains("Subject: Reset your Parley password"))
            let code = try token(inMail: reset)
            let confirmed = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": code, "newPassword": "battery staple"])
            #expect(confirmed.status == .noContent)

            // Every session ended: the refreshed phone session and the laptop alike.
            let newPhoneAccess = try #require(refreshed["accessToken"] as? String)
            let newPhoneRefresh = try #require(refreshed["refreshToken"] as? String)
            #expect(try await client.call(.get, "/v1/me", token: newPhoneAccess).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", token: laptop.accessToken).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": newPhoneRefresh]).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": laptop.refreshToken]).status == .unauthorized)
            let fresh = try await client.logIn("ann@example.com", password: "battery staple")
            #expect(try await client.call(.get, "/v1/me", token: fresh.accessToken).user["email"] as? String == "ann@example.com")
        }
    }

    /// The `n`th message aiosmtpd delivered, waiting up to 10 s.
    static func mail(number n: Int, from smtp: LiveSMTPServer) async throws -> String {
        for _ in 0..<200 {
            let messages = try smtp.deliveredMessages()
            if messages.count >= n { return messages[n - 1] }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no mail number \(n); aiosmtpd log:\n\(smtp.log)")
        throw Outbox.OutboxError.noMail("ann@example.com", n)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Limits that hold per user and per client address: logins (behind a trusted proxy too, and
/// never locking the owner out from elsewhere), registrations, messages, friend requests, calls.
@Suite struct LimitsTests {
    static func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: "198.51.100.9, \(address)"] }

    static func login(_ client: some TestClientProtocol, password: String, from address: String) async throws -> Reply {
        try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": password], headers: from(address))
    }

    @Test func wrongGuessesFromElsewhereDoNotLockTheOwnerOut() async throws {
        let parley = try await TestParley.start { $0.trustedProxies = ["127.0.0.1", "::1"] }
        try await parley.test(.live) { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            for _ in 0..<5 {
                #expect(try await Self.login(client, password: "guess guess", from: "203.0.113.7").errorCode == "invalid_credentials")
            }
            let guesser = try await Self.login(client, password: "correct horse", from: "203.0.113.7")
            #expect(guesser.errorCode == "rate_limited" && Int(guesser.headers[.retryAfter] ?? "") ?? 0 > 0)
            // Ann at home, behind the same proxy.
            #expect(try await Self.login(client, password: "correct horse", from: "192.0.2.44").status == .ok)
        }
    }

    @Test func withoutATrustedProxyAForwardedAddressIsNotBelieved() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            for n in 0..<5 {
                #expect(try await Self.login(client, password: "guess guess", from: "203.0.113.\(n)").errorCode == "invalid_credentials")
            }
            #expect(try await Self.login(client, password: "guess guess", from: "203.0.113.99").errorCode == "rate_limited",
                    "a forged header does not buy fresh attempts")
        }
    }

    @Test func attemptsPerAddressCountTheClientBehindTheProxy() async throws {
        let parley = try await TestParley.start { $0.trustedProxies = ["127.0.0.0/8", "::1"]; $0.loginAttemptsPerAddress = 3 }
        try await parley.test(.live) { client in
            for n in 0..<3 {
                let reply = try await client.call(.post, "/v1/auth/login", json: ["email": "u\(n)@example.com", "password": "guess guess"],
                                                  headers: Self.from("203.0.113.7"))
                #expect(reply.errorCode == "invalid_credentials")
            }
            let limited = try await client.call(.post, "/v1/auth/login", json: ["email": "u9@example.com", "password": "guess guess"],
                                                headers: Self.from("203.0.113.7"))
            #expect(limited.errorCode == "rate_limited")
            let other = try await client.call(.post, "/v1/auth/login", json: ["email": "u9@example.com", "password": "guess guess"],
                                              headers: Self.from("203.0.113.8"))
            #expect(other.errorCode == "invalid_credentials", "another client behind the proxy is not limited")
        }
    }

    @Test func registrationsAreLimitedPerAddressAndOverall() async throws {
        let parley = try await TestParley.start {
            $0.trustedProxies = ["127.0.0.1", "::1"]; $0.registrationsPerAddressPerHour = 2; $0.registrationsPerHour = 3
        }
        try await parley.test(.live) { client in
            func register(_ n: Int, from address: String) async throws -> Reply {
                try await client.call(.post, "/v1/auth/register", json: ["name": "U\(n)", "email": "u\(n)@example.com", "password": "correct horse",
                                                                        "dateOfBirth": "2000-01-01"], headers: Self.from(address))
            }
            #expect(try await register(1, from: "203.0.113.1").status == .created)
            #expect(try await register(2, from: "203.0.113.1").status == .created)
            let third = try await register(3, from: "203.0.113.1")
            #expect(third.status == .tooManyRequests && third.errorCode == "rate_limited")
            #expect(try await register(4, from: "203.0.113.2").status == .created)
            #expect(try await register(5, from: "203.0.113.3").errorCode == "rate_limited", "three an hour from everywhere")
            parley.clock.advance(by: 3601)
            #expect(try await register(6, from: "203.0.113.1").status == .created)
        }
    }

    @Test func messagesFriendRequestsAndInvitesHaveAPerUserRate() async throws {
        let parley = try await TestParley.start { $0.messagesPerMinute = 3; $0.friendRequestsPerHour = 4; $0.callInvitesPerMinute = 2 }
        try await parley.test(.live) { client in
            let scene = try await CallSignallingTests.scene(parley, client)
            defer { scene.close() }
            let dialog = try await client.privateDialog(scene.ann, with: scene.bo)
            for n in 0..<3 { #expect(try await client.sendText(scene.ann, dialog, "m\(n)").status == .created) }
            let limited = try await client.sendText(scene.ann, dialog, "one too many")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited" && limited.headers[.retryAfter] != nil)
            let overSocket = try await scene.annSocket.command("message.send", ["dialogId": dialog, "clientMessageId": "ws", "kind": "text", "text": "x"])
            #expect((overSocket["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            #expect(try await client.history(scene.bo, dialog).count == 3, "nothing past the limit is stored")
            #expect(try await client.sendText(scene.bo, dialog, "Bo has his own share").status == .created)
            parley.clock.advance(by: 61)
            #expect(try await client.sendText(scene.ann, dialog, "a minute on").status == .created)

            var strangers: [TestUser] = []
            for n in 0..<3 { strangers.append(try await client.signUp("S\(n)", "s\(n)@example.com", outbox: parley.outbox)) }
            // Cy used two of his four befriending Ann and Bo.
            for stranger in strangers.prefix(2) {
                #expect(try await client.call(.post, "/v1/friends/requests", json: ["userId": stranger.id], token: scene.cy.accessToken).status == .created)
            }
            let third = try await client.call(.post, "/v1/friends/requests", json: ["userId": strangers[2].id], token: scene.cy.accessToken)
            #expect(third.errorCode == "rate_limited")

            for _ in 0..<2 {
                let id = try #require(try await CallSignallingTests.invite(scene.annSocket, scene.bo)["callId"] as? String)
                #expect(try await scene.annSocket.command("call.hangup", ["callId": id]).ok == true)
            }
            let invite = try await CallSignallingTests.invite(scene.annSocket, scene.bo)
            #expect((invite["error"] as? [String: Any])?["code"] as? String == "rate_limited", "\(invite)")
        }
    }
}

import AsyncHTTPClient
import Crypto
import Foundation
import NIOSSL
import ParleyPush
import ParleyTestSupport
import Testing

/// The APNs provider against the APNs stand-in (Tests/Peers/apns_standin.py): HTTP/2 over TLS,
/// JWTs checked against the key's public half, answers as APNs gives them.
@Suite("APNs provider against the APNs stand-in")
struct APNsClientTests {
    typealias H = APNsHarness

    @Test("VoIP and alert pushes arrive over HTTP/2 with their headers, topic, JWT and payload; one JWT and one connection serve them all")
    func pushesArrive() async throws {
        try await H.run { harness in
            let voipPayload = H.payload(#"{"aps":{},"call":{"id":"c1","caller":"Ada"}}"#)
            let alertPayload = H.payload()
            let expiration = Date(timeIntervalSince1970: 1_800_000_000)
            let voipToken = H.deviceToken(), alertToken = H.deviceToken()
            let before = Date()
            let (outcomes, stats) = try await harness.withClient { client in
                let outcomes = [
                    await client.send(PushMessage(kind: .voip, payload: voipPayload, createdAt: before), to: H.target(voipToken)),
                    await client.send(PushMessage(kind: .alert, payload: alertPayload, priority: 5, expiration: expiration,
                                                  collapseID: "dialog-42"), to: H.target(alertToken)),
                    await client.send(PushMessage(kind: .alert, payload: alertPayload), to: H.target(alertToken)),
                ]
                return (outcomes, client.stats())
            }
            let requests = try await harness.standIn.requests()
            try #require(requests.count == 3, "\(harness.standIn.stderr)")

            for (outcome, request) in zip(outcomes, requests) {
                #expect(outcome == .delivered(apnsID: request.apnsID))
                #expect(request.status == 200)
                #expect(request.alpn == "h2")
                #expect(request.method == "POST")
                #expect(request.headers["content-type"] == "application/json")
                let jwt = try #require(request.jwt)
                #expect(jwt.header == ["alg": "ES256", "kid": H.keyID])
                #expect(jwt.claims.iss == H.teamID)
                let iat = try #require(jwt.claims.iat)
                #expect(abs(Double(iat) - before.timeIntervalSince1970) < 5)
            }
            #expect(Set(requests.map(\.jwt?.token)).count == 1, "the provider token is reused")
            #expect(Set(requests.map(\.connection)).count == 1, "one HTTP/2 connection, multiplexed")

            let voip = requests[0]
            #expect(voip.path == "/3/device/\(voipToken)")
            #expect(voip.headers["apns-push-type"] == "voip")
            #expect(voip.headers["apns-topic"] == "\(H.bundleID).voip")
            #expect(voip.headers["apns-priority"] == "10")
            #expect(voip.headers["apns-expiration"] == "0")
            #expect(voip.headers["apns-collapse-id"] == nil)
            #expect(voip.body == String(decoding: voipPayload, as: UTF8.self))

            let alert = requests[1]
            #expect(alert.path == "/3/device/\(alertToken)")
            #expect(alert.headers["apns-push-type"] == "alert")
            #expect(alert.headers["apns-topic"] == H.bundleID)
            #expect(alert.headers["apns-priority"] == "5")
            #expect(alert.headers["apns-expiration"] == "1800000000")
            #expect(alert.headers["apns-collapse-id"] == "dialog-42")
            #expect(alert.body == String(decoding: alertPayload, as: UTF8.self))

            #expect(stats.sent == 3 && stats.requests == 3 && stats.delivered == 3 && stats.retried == 0)
            #expect(stats.failed == 0 && stats.tokenGone == 0 && stats.expired == 0)
            #expect(stats.providerTokensIssued == 1)
            #expect(stats.latencySamples == 3)
            let p50 = try #require(stats.latencyP50), p99 = try #require(stats.latencyP99)
            #expect(p50 >= 0 && p50 <= p99 && p99 < 5)
        }
    }

    @Test("pushes sent at once are multiplexed as streams of one HTTP/2 connection")
    func concurrentPushesShareAConnection() async throws {
        try await H.run { harness in
            let outcomes = try await harness.withClient { client in
                _ = await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())   // connects
                return await withTaskGroup(of: PushOutcome.self) { group in
                    for _ in 0..<20 {
                        group.addTask { await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target()) }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            let requests = try await harness.standIn.requests()
            #expect(outcomes.count == 20)
            #expect(outcomes.allSatisfy { if case .delivered = $0 { true } else { false } })
            #expect(requests.count == 21 && Set(requests.map(\.connection)) == [1])
            #expect(Set(requests.compactMap(\.streamID)).count == 21, "each push its own stream")
        }
    }

    @Test("a token APNs calls Unregistered (410), or a malformed one (400 BadDeviceToken), is gone")
    func goneTokens() async throws {
        try await H.run { harness in
            let unregistered = H.deviceToken()
            try await harness.standIn.unregister(token: unregistered)
            let message = PushMessage(kind: .alert, payload: H.payload())
            let stats = try await harness.withClient { client in
                #expect(await client.send(message, to: H.target(unregistered)) == .tokenGone(reason: "Unregistered"))
                #expect(await client.send(message, to: H.target("0123abcd")) == .tokenGone(reason: "BadDeviceToken"))
                // Not hex: refused before it could reach the path.
                #expect(await client.send(message, to: H.target("../admin")) == .tokenGone(reason: "BadDeviceToken"))
                return client.stats()
            }
            let requests = try await harness.standIn.requests()
            #expect(requests.map(\.status) == [410, 400])
            #expect(requests.map(\.reason) == ["Unregistered", "BadDeviceToken"])
            #expect(stats.sent == 3 && stats.requests == 2 && stats.tokenGone == 3 && stats.retried == 0)
        }
    }

    @Test("while APNs answers 503 for 1.5 s the push is retried with doubling waits, then delivered")
    func retriesThroughUnavailability() async throws {
        try await H.run { harness in
            let (outcome, stats) = try await harness.withClient { client in
                _ = await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())   // connects
                // 3 s: on a machine running the whole suite at once, the next request can take over
                // a second to leave, and a shorter window may already have closed by then.
                try await harness.standIn.fail(seconds: 3)
                // Delivered only once the window closed: every request before the last was refused
                // (checked below from what the stand-in saw, not from this side's clock).
                let outcome = await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())
                return (outcome, client.stats())
            }
            let requests = try await harness.standIn.requests().dropFirst()
            guard case .delivered = outcome else {
                Issue.record("expected delivery, got \(outcome); \(requests.map(\.status))")
                return
            }
            #expect(requests.last?.status == 200)
            #expect(requests.dropLast().allSatisfy { $0.status == 503 && $0.reason == "ServiceUnavailable" })
            // Waits of at least 0.05, 0.1, 0.2, 0.4, 0.8, 1.6 s (half of 0.1 s doubling) fit at most
            // six refusals into 3 s; a fixed 0.1 s backoff would have made about thirty.
            #expect((2...7).contains(requests.count), "\(requests.map(\.arrival))")
            #expect(zip(requests.dropFirst(), requests).allSatisfy { $0.arrival - $1.arrival >= 0.05 })
            #expect(stats.requests == 1 + requests.count && stats.retried == requests.count - 1 && stats.delivered == 2)
        }
    }

    @Test("429 with Retry-After waits as long as APNs asks")
    func honoursRetryAfter() async throws {
        try await H.run { harness in
            try await harness.standIn.fail(count: 1, status: 429, reason: "TooManyRequests", retryAfter: 1)
            let outcome = try await harness.withClient { client in
                await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())
            }
            let requests = try await harness.standIn.requests()
            guard case .delivered = outcome else { Issue.record("expected delivery, got \(outcome)"); return }
            try #require(requests.map(\.status) == [429, 200])
            #expect(requests[1].arrival - requests[0].arrival >= 0.95)
        }
    }

    @Test("a push whose deadline passes while APNs answers 503 expires and is not sent late; one already past is not sent")
    func expiresAtTheDeadline() async throws {
        try await H.run { harness in
            try await harness.standIn.fail(seconds: 10)
            // Room for a first answer and a retry before the deadline even when the machine is
            // loaded (the whole suite beside it); the retry is what shows a 503 is retried.
            let deadline = Date().addingTimeInterval(6)
            let stats = try await harness.withClient { client in
                let ring = PushMessage(kind: .voip, payload: H.payload(#"{"aps":{}}"#), deadline: deadline)
                #expect(await client.send(ring, to: H.target()) == .expired)
                // At the deadline, not at the end of the 30 s retry window (slack for a loaded machine).
                #expect(Date() < deadline.addingTimeInterval(2), "gives up at the deadline, not later")
                let stale = PushMessage(kind: .voip, payload: H.payload(#"{"aps":{}}"#), deadline: Date().addingTimeInterval(-1))
                #expect(await client.send(stale, to: H.target()) == .expired)
                return client.stats()
            }
            try await Task.sleep(for: .milliseconds(300))
            let requests = try await harness.standIn.requests()
            #expect(requests.count >= 2)
            // No retry starts past the deadline; one started just before may land a moment after it.
            #expect(requests.allSatisfy { $0.arrivalDate < deadline.addingTimeInterval(0.5) }, "nothing sent after the deadline")
            #expect(stats.expired == 2 && stats.requests == requests.count && stats.delivered == 0)
        }
    }

    @Test("a last try that the end of the retry window cuts short fails with APNs' last reason, not a connection error")
    func theWindowEndingIsNotAConnectionError() async throws {
        try await H.run { harness in
            let stats = try await harness.withClient(harness.configuration(maxRetryWindow: 2.5)) { client in
                _ = await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())   // connects
                // 503 for the first try, then no answer at all: the try that has only the rest of
                // the window waits it out.
                try await harness.standIn.fail(count: 1)
                try await harness.standIn.hold(seconds: 10)
                let started = Date()
                #expect(await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())
                    == .failed(reason: "ServiceUnavailable"))
                #expect(Date().timeIntervalSince(started) < 8, "the 2.5 s window, not the 10 s request timeout (a loaded machine has added 3 s)")
                return client.stats()
            }
            let requests = try await harness.standIn.requests().dropFirst()
            #expect(requests.contains { $0.status == 503 } && requests.last?.status == 0, "refused, then held: \(requests.map(\.status))")
            #expect(stats.failedByReason == ["ServiceUnavailable": 1])
        }
    }

    @Test("retries stop at the retry window: the push fails with APNs' last reason")
    func givesUpAfterTheWindow() async throws {
        try await H.run { harness in
            let stats = try await harness.withClient(harness.configuration(maxRetryWindow: 2.5)) { client in
                _ = await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())   // connects
                try await harness.standIn.fail(seconds: 10)
                let started = Date()
                #expect(await client.send(PushMessage(kind: .alert, payload: H.payload()), to: H.target())
                    == .failed(reason: "ServiceUnavailable"))
                #expect(Date().timeIntervalSince(started) < 10, "the 2.5 s window, not the default 30 s")
                return client.stats()
            }
            let requests = try await harness.standIn.requests().dropFirst()
            #expect(requests.count >= 2 && requests.allSatisfy { $0.status == 503 })
            #expect(stats.failedByReason == ["ServiceUnavailable": 1] && stats.retried == requests.count - 1)
        }
    }

    @Test("a provider token APNs calls expired is replaced at once, and the push goes through")
    func renewsAnExpiredProviderToken() async throws {
        try await H.run { harness in
            let stats = try await harness.withClient { client in
                let message = PushMessage(kind: .alert, payload: H.payload())
                #expect(await client.send(message, to: H.target()) != .expired)
                try await harness.standIn.expireProviderTokens()
                let outcome = await client.send(message, to: H.target())
                guard case .delivered = outcome else { Issue.record("expected delivery, got \(outcome)"); return client.stats() }
                return client.stats()
            }
            let requests = try await harness.standIn.requests()
            try #require(requests.map(\.status) == [200, 403, 200])
            #expect(requests[1].reason == "ExpiredProviderToken")
            #expect(requests[1].jwt?.token == requests[0].jwt?.token)
            #expect(requests[2].jwt?.token != requests[0].jwt?.token)
            #expect(stats.providerTokensIssued == 2 && stats.retried == 1 && stats.delivered == 2)
        }
    }

    @Test("a JWT signed with another key is refused (403 InvalidProviderToken), so the push fails")
    func wrongKeyIsRefused() async throws {
        try await H.run { harness in
            let otherKey = try H.writeP8(P256.Signing.PrivateKey(), in: harness.directory, name: "other.p8")
            let stats = try await harness.withClient(harness.configuration(keyFile: otherKey)) { client in
                #expect(await client.send(PushMessage(kind: .voip, payload: H.payload(#"{"aps":{}}"#)), to: H.target())
                    == .failed(reason: "InvalidProviderToken"))
                return client.stats()
            }
            let requests = try await harness.standIn.requests()
            #expect(requests.map(\.status) == [403, 403], "one fresh token is tried, then no more")
            #expect(requests.map(\.reason) == ["InvalidProviderToken", "InvalidProviderToken"])
            #expect(requests.allSatisfy { $0.jwt?.header["kid"] == H.keyID && $0.jwt?.claims.iss == H.teamID })
            #expect(stats.failedByReason == ["InvalidProviderToken": 1] && stats.providerTokensIssued == 2)
        }
    }

    @Test("the stand-in speaks only HTTP/2: an HTTP/1.1 client gets no answer")
    func standInRefusesHTTP1() async throws {
        try await H.run { harness in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(harness.standIn.caFile)]
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.httpVersion = .http1Only
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            var request = HTTPClientRequest(url: harness.standIn.url + "/3/device/" + H.deviceToken())
            request.method = .POST
            await #expect(throws: (any Error).self) {
                _ = try await client.execute(request, timeout: .seconds(5))
            }
            try await client.shutdown()
            #expect(try await harness.standIn.requests().isEmpty)
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyApp
import Testing

/// What `/metrics` shows after real traffic through the server, and `/health/ready`.
@Suite struct MetricsTests {
    static let adminToken = "admin-token-for-tests-0123456789"

    static func start() async throws -> TestParley {
        try await TestParley.start { $0.adminToken = adminToken }
    }

    static func scrape(_ client: some TestClientProtocol) async throws -> Exposition {
        let reply = try await client.call(.get, "/metrics", token: adminToken)
        try #require(reply.status == .ok, "\(reply.text)")
        #expect(reply.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
        return try Exposition(parsing: reply.text)
    }

    @Test func requestsMessagesAndMailAreRecordedAsTheyHappen() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            let (ann, _, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            #expect(try await client.sendText(ann, dialog, "hello").status == .created)
            #expect(try await client.call(.get, "/v1/no-such-thing").status == .notFound)
            #expect(try await client.sendText(ann, "not-a-dialog", "hello").status == .notFound)
            let metrics = try await Self.scrape(client)

            #expect(metrics["parley_http_requests_total"]?.type == "counter")
            #expect(metrics["parley_http_request_duration_seconds"]?.type == "histogram")
            let registered = ["route": "/v1/auth/register", "method": "POST", "status": "201"]
            #expect(metrics.value("parley_http_requests_total", registered) == 2)
            #expect(metrics.value("parley_http_request_duration_seconds_count", registered) == 2)
            // Routes by their pattern, never the raw path; what matched nothing under one name.
            let sent = try #require(metrics.series["parley_http_requests_total"]?.filter {
                $0.labels["method"] == "POST" && $0.labels["route"]?.hasSuffix("/messages") == true
            })
            #expect(Set(sent.map { $0.labels["status"] }) == ["201", "404"])
            #expect(sent.allSatisfy { $0.labels["route"]?.contains(dialog) == false && $0.labels["route"]?.contains("not-a-dialog") == false })
            #expect(metrics.value("parley_http_requests_total", ["route": "unmatched", "method": "GET", "status": "404"]) == 1)

            #expect(metrics.value("parley_message_ack_seconds_count") == 1)
            // To each member: Ann's own devices and Bo's.
            #expect(metrics.value("parley_message_delivery_seconds_count") == 2)
            #expect(metrics.value("parley_mail_total", ["outcome": "sent"]) == 2, "the two verification mails")
            #expect(metrics["parley_message_ack_seconds"]?.help?.isEmpty == false)
        }
    }

    @Test func readyWhileDatabaseMigrationsAndRelayAreUpAndNotOnceTheRelayStops() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            let ready = try await client.call(.get, "/health/ready")
            #expect(ready.status == .ok, "\(ready.text)")
            #expect(ready["status"] as? String == "ready")
            #expect(ready["checks"] as? [String: Bool] == ["database": true, "migrations": true, "relay": true])
            #expect(ready.headers[.cacheControl] == "no-store")

            await parley.parts.relay.shutdown()
            let stopped = try await client.call(.get, "/health/ready")
            #expect(stopped.status == .serviceUnavailable)
            #expect(stopped.errorCode == "not_ready")
            #expect((stopped.json["error"] as? [String: any Sendable])?["message"] as? String == "Not ready: relay")
            // Liveness is another question: the process still serves and the database answers.
            #expect(try await client.call(.get, "/health").status == .ok)
        }
    }

    @Test func aScrapeListenerServesMetricsAloneWithoutTheToken() async throws {
        let parley = try await TestParley.start {
            $0.adminToken = Self.adminToken
            $0.metricsListen = "127.0.0.1:0"
        }
        let scrape = try #require(try ParleyServer.metricsApplication(parley.config, parts: parley.parts, logger: .init(label: "test")))
        try await scrape.test(.router) { client in
            let reply = try await client.call(.get, "/metrics")
            #expect(reply.status == .ok)
            let metrics = try Exposition(parsing: reply.text)
            #expect(metrics.value("parley_database_up", ["kind": "sqlite"]) == 1)
            #expect(try await client.call(.get, "/admin/status").status == .notFound)
            #expect(try await client.call(.get, "/v1/me").status == .notFound)
        }
        try await parley.parts.database.close()
        try? FileManager.default.removeItem(atPath: parley.directory)
    }

    @Test func aMetricsListenerThatIsNotHostAndPortIsRefusedAtStart() async throws {
        for listen in ["9464", "localhost:", "localhost:99999", ":9464"] {
            let parley = try await TestParley.start { $0.metricsListen = listen }
            #expect(throws: (any Error).self, "\(listen)") {
                try ParleyServer.metricsApplication(parley.config, parts: parley.parts, logger: .init(label: "test"))
            }
            try await parley.parts.database.close()
            try? FileManager.default.removeItem(atPath: parley.directory)
        }
    }
}

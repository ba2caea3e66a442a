import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyApp
import ParleyTestSupport
import Testing

/// `/admin/status`, `/metrics` and `POST /admin/users` against the real server (API.md, "Operations").
@Suite struct AdminTests {
    static let adminToken = "admin-token-for-tests-0123456789"

    static func start() async throws -> TestParley {
        try await TestParley.start { $0.adminToken = adminToken }
    }

    // MARK: The admin token

    @Test func everyOperationsRouteRefusesAMissingOrWrongToken() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let routes: [(HTTPRequest.Method, String)] = [(.get, "/admin/status"), (.get, "/metrics"), (.post, "/admin/users")]
            // A user's access token is not an admin token; nor is a prefix or an extension of the real one.
            let wrong: [String?] = [nil, "wrong", ann.accessToken, String(Self.adminToken.dropLast()), Self.adminToken + "x"]
            for (method, path) in routes {
                for token in wrong {
                    let reply = try await client.call(method, path, json: method == .post ? ["count": 1, "password": "correct horse"] : nil, token: token)
                    #expect(reply.status == .unauthorized, "\(path) with \(token ?? "no token")")
                    #expect(reply.errorCode == "unauthenticated")
                    #expect(reply.headers[.wwwAuthenticate] == "Bearer")
                }
                let basic = try await client.call(method, path, headers: [.authorization: "Basic \(Self.adminToken)"])
                #expect(basic.status == .unauthorized)
            }
            // Nothing was created by the refused POSTs.
            let login = try await client.call(.post, "/v1/auth/login", json: ["email": "user0@parley.test", "password": "correct horse"])
            #expect(login.errorCode == "invalid_credentials")
        }
    }

    @Test func withoutAConfiguredTokenOneIsGeneratedAndKeptPrivate() async throws {
        // One node on its own SQLite (nodes sharing PostgreSQL are given the token: TwoNodesTests).
        let parley = try await TestParley.start { $0.databaseURL = ""; $0.adminToken = "" }
        let path = parley.directory + "/admin-token"
        let token = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count >= 32)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        try await parley.test(.router) { client in
            let generated = try await client.call(.get, "/admin/status", token: token)
            #expect(generated.status == .ok)
            let unconfigured = try await client.call(.get, "/admin/status", token: Self.adminToken)
            #expect(unconfigured.status == .unauthorized)
        }
    }

    @Test func theTokenCanComeFromTheEnvironment() async throws {
        let config = try await ParleyConfiguration.load(file: nil, environment: ["ADMIN_TOKEN": "from-the-environment-0123456789"])
        #expect(config.adminToken == "from-the-environment-0123456789")
        #expect(try await ParleyConfiguration.load(file: nil, environment: [:]).adminToken == "")
    }

    // MARK: Status

    @Test func statusReportsTheLiveFigures() async throws {
        let parley = try await Self.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let tablet = try await client.logIn("ann@example.com")
            let before = try await client.call(.get, "/admin/status", token: Self.adminToken)
            #expect(before.status == .ok, "\(before.text)")
            #expect(before.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(number(before["connections"]) == 0)
            #expect(number(before["onlineUsers"]) == 0)

            let (phone, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (pad, _) = try await RealtimeClient.connect(port: client.port!, token: tablet.accessToken)
            let during = try await client.call(.get, "/admin/status", token: Self.adminToken)
            #expect(number(during["connections"]) == 2)
            #expect(number(during["onlineUsers"]) == 1)
            #expect((during["version"] as? String)?.isEmpty == false)
            #expect((number(during["uptimeSeconds"]) ?? -1) >= 0)

            let calls = try #require(during["calls"] as? [String: any Sendable])
            #expect(Set(calls.keys) == ["ringing", "active", "ended"])
            #expect(calls.values.allSatisfy { number($0) == 0 })
            let relay = try #require(during["relay"] as? [String: any Sendable])
            for key in ["legs", "packetsIn", "packetsOut", "bytesIn", "bytesOut", "decryptFailures", "dropped"] {
                #expect(number(relay[key]) == 0, "relay.\(key)")
            }
            // ICE over TCP's share, beside the totals.
            let tcp = try #require(relay["tcp"] as? [String: any Sendable])
            for key in ["connections", "pending", "accepted", "packetsIn", "packetsOut", "bytesIn", "bytesOut"] {
                #expect(number(tcp[key]) == 0, "relay.tcp.\(key)")
            }
            #expect(Set((tcp["closedByReason"] as? [String: any Sendable])?.keys ?? [:].keys)
                    == ["over_limit", "unauthenticated", "timed_out", "bad_framing"])
            let process = try #require(during["process"] as? [String: any Sendable])
            #expect((number(process["cpuSeconds"]) ?? 0) > 0)
            #expect((number(process["residentBytes"]) ?? 0) > 1_048_576)
            let database = try #require(during["database"] as? [String: any Sendable])
            #expect(database["kind"] as? String == TestEngine.forServerSuites.rawValue)
            #expect(database["ok"] as? Bool == true)

            phone.close()
            pad.close()
            var connections: Double? = nil
            for _ in 0..<100 {
                connections = number(try await client.call(.get, "/admin/status", token: Self.adminToken)["connections"])
                if connections == 0 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(connections == 0, "closed sockets stop counting")
        }
    }

    // MARK: Metrics

    @Test func metricsAreWellFormedPrometheusTextWithEveryFamily() async throws {
        let parley = try await Self.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let (phone, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { phone.close() }
            let reply = try await client.call(.get, "/metrics", token: Self.adminToken)
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let metrics = try Exposition(parsing: reply.text)

            let expected: [String: String] = [
                "parley_uptime_seconds": "gauge", "parley_connections": "gauge", "parley_online_users": "gauge",
                "parley_calls": "gauge", "parley_relay_legs": "gauge",
                "parley_relay_packets_total": "counter", "parley_relay_bytes_total": "counter",
                "parley_relay_decrypt_failures_total": "counter", "parley_relay_dropped_total": "counter",
                "parley_relay_tcp_connections": "gauge", "parley_relay_tcp_packets_total": "counter",
                "parley_relay_tcp_bytes_total": "counter", "parley_relay_tcp_connections_closed_total": "counter",
                "process_cpu_seconds_total": "counter", "process_resident_memory_bytes": "gauge", "parley_database_up": "gauge",
            ]
            for (name, type) in expected {
                #expect(metrics[name]?.type == type, "\(name)")
                #expect(metrics[name]?.help?.isEmpty == false, "\(name) has help")
            }
            #expect(metrics.value("parley_connections") == 1)
            #expect(metrics.value("parley_online_users") == 1)
            #expect(metrics.value("parley_calls", ["state": "ringing"]) == 0)
            #expect(metrics.value("parley_calls", ["state": "active"]) == 0)
            #expect(metrics.value("parley_relay_packets_total", ["direction": "in"]) == 0)
            #expect(metrics.value("parley_relay_bytes_total", ["direction": "out"]) == 0)
            #expect((metrics.value("process_cpu_seconds_total") ?? 0) > 0)
            #expect((metrics.value("process_resident_memory_bytes") ?? 0) > 1_048_576)
            #expect(metrics.value("parley_database_up", ["kind": TestEngine.forServerSuites.rawValue]) == 1)
        }
    }

    // MARK: Creating users in bulk

    @Test func fiftyVerifiedUsersBefriendedInPairs() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            let reply = try await client.call(.post, "/admin/users", json: [
                "count": 50, "namePrefix": "load", "password": "correct horse", "befriend": "pairs",
            ], token: Self.adminToken)
            #expect(reply.status == .created, "\(reply.text)")
            let users = try #require(reply["users"] as? [[String: any Sendable]])
            #expect(users.count == 50)
            let emails = users.compactMap { $0["email"] as? String }
            #expect(emails == (0..<50).map { "load\($0)@parley.test" })
            let ids = users.compactMap { $0["id"] as? String }
            #expect(Set(ids).count == 50)

            // Verified already: they log in without a mail ever being sent.
            let first = try await client.logIn("load0@parley.test")
            let third = try await client.logIn("load2@parley.test")
            let last = try await client.logIn("load49@parley.test")
            #expect(first.id == ids[0])
            #expect(parley.outbox.count(to: "load0@parley.test") == 0)

            #expect(try await friendIDs(client, first) == [ids[1]])
            #expect(try await friendIDs(client, third) == [ids[3]])
            #expect(try await friendIDs(client, last) == [ids[48]])
            let me = try await client.call(.get, "/v1/me", token: first.accessToken)
            #expect(me.user["name"] as? String == "load 0")
        }
    }

    @Test func seededUsersCanComeSignedIn() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            let reply = try await client.call(.post, "/admin/users", json: [
                "count": 4, "namePrefix": "run", "password": "correct horse", "befriend": "pairs", "sessions": true,
            ], token: Self.adminToken)
            #expect(reply.status == .created, "\(reply.text)")
            let users = try #require(reply["users"] as? [[String: any Sendable]])
            #expect(users.count == 4)
            for user in users {
                let token = try #require(user["accessToken"] as? String)
                #expect(user["refreshToken"] is String)
                #expect(user["expiresIn"] as? Int == 900)
                let me = try await client.call(.get, "/v1/me", token: token)
                #expect(me.user["id"] as? String == user["id"] as? String)
            }
            // Without `sessions`, no tokens are handed out.
            let plain = try await client.call(.post, "/admin/users", json: [
                "count": 1, "namePrefix": "plain", "password": "correct horse",
            ], token: Self.adminToken)
            let only = try #require((plain["users"] as? [[String: any Sendable]])?.first)
            #expect(only["accessToken"] == nil)
        }
    }

    @Test func listedUsersKeepTheirOwnPasswordsAndCanAllBeFriends() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            let reply = try await client.call(.post, "/admin/users", json: [
                "users": [
                    ["name": "Ann", "email": " Ann@Example.com", "password": "ann's password"],
                    ["name": "Bo", "email": "bo@example.com", "password": "bo's password"],
                    ["name": "Cy", "email": "cy@example.com", "password": "ann's password"],
                ],
                "befriend": "all",
            ], token: Self.adminToken)
            #expect(reply.status == .created, "\(reply.text)")
            let users = try #require(reply["users"] as? [[String: any Sendable]])
            #expect(users.compactMap { $0["email"] as? String } == ["ann@example.com", "bo@example.com", "cy@example.com"])

            let ann = try await client.logIn("ann@example.com", password: "ann's password")
            let bo = try await client.logIn("bo@example.com", password: "bo's password")
            _ = try await client.logIn("cy@example.com", password: "ann's password")
            let wrong = try await client.call(.post, "/v1/auth/login", json: ["email": "bo@example.com", "password": "ann's password"])
            #expect(wrong.errorCode == "invalid_credentials")
            #expect(try await friendIDs(client, ann).count == 2)
            #expect(try await friendIDs(client, bo).count == 2)

            let again = try await client.register("Ann", "ann@example.com")
            #expect(again.errorCode == "email_taken")
        }
    }

    @Test func badBodiesAreRefusedWithStableCodesAndCreateNothing() async throws {
        let parley = try await Self.start()
        try await parley.test(.router) { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let password = "correct horse"
            let cases: [(body: [String: any Sendable]?, raw: String?, status: HTTPResponse.Status, code: String)] = [
                (nil, "", .badRequest, "invalid_json"),
                (nil, "{count: 2}", .badRequest, "invalid_json"),
                ([:], nil, .badRequest, "invalid_field"),
                (["count": 2, "password": password, "users": [["name": "A", "email": "a@x.io", "password": password]]], nil, .badRequest, "invalid_field"),
                (["count": 2], nil, .badRequest, "missing_field"),
                (["count": "ten", "password": password], nil, .badRequest, "invalid_field"),
                (["count": 2, "password": password, "befriend": "some"], nil, .badRequest, "invalid_field"),
                (["users": [["name": "A", "email": "a@x.io"]]], nil, .badRequest, "missing_field"),
                (["count": 0, "password": password], nil, .unprocessableContent, "invalid_count"),
                (["count": 10_001, "password": password], nil, .unprocessableContent, "invalid_count"),
                (["users": [[String: String]]()], nil, .unprocessableContent, "invalid_count"),
                (["count": 2, "password": "short"], nil, .unprocessableContent, "weak_password"),
                (["count": 2, "password": password, "emailDomain": "localhost"], nil, .unprocessableContent, "invalid_email"),
                (["count": 2, "password": password, "namePrefix": "two words"], nil, .unprocessableContent, "invalid_email"),
                (["count": 201, "password": password, "befriend": "all"], nil, .unprocessableContent, "too_many_to_befriend"),
                (["users": [["name": " ", "email": "a@x.io", "password": password]]], nil, .unprocessableContent, "invalid_name"),
                (["users": [["name": "A", "email": "a@x.io", "password": password], ["name": "B", "email": "A@X.io", "password": password]]],
                 nil, .unprocessableContent, "duplicate_email"),
                (["users": [["name": "B", "email": "b@x.io", "password": password], ["name": "A", "email": "ann@example.com", "password": password]]],
                 nil, .conflict, "email_taken"),
            ]
            for (body, raw, status, code) in cases {
                let reply = try await client.call(
                    .post, "/admin/users", json: body, raw: raw.map { Array($0.utf8) }, token: Self.adminToken,
                    headers: [.contentType: "application/json"])
                #expect(reply.status == status, "\(body ?? [:]) \(raw ?? "") → \(reply.text)")
                #expect(reply.errorCode == code, "\(body ?? [:]) \(raw ?? "")")
            }
            // All or nothing: the valid first entry of the refused list was not created either.
            for email in ["b@x.io", "user0@parley.test", "a@x.io"] {
                let login = try await client.call(.post, "/v1/auth/login", json: ["email": email, "password": password])
                #expect(login.errorCode == "invalid_credentials", "\(email)")
            }
        }
    }
}

/// The ids of `user`'s friends.
private func friendIDs(_ client: some TestClientProtocol, _ user: TestUser) async throws -> [String] {
    let reply = try await client.call(.get, "/v1/friends", token: user.accessToken)
    try #require(reply.status == .ok, "\(reply.text)")
    return (reply["friends"] as? [[String: any Sendable]] ?? []).compactMap { $0["id"] as? String }
}

/// A JSON number as a Double, however JSONSerialization bridged it.
private func number(_ value: (any Sendable)?) -> Double? {
    (value as? NSNumber)?.doubleValue
}

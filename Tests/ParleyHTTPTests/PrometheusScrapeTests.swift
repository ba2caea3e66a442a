import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import ParleyApp
import ParleyTestSupport
import Testing

/// A real Prometheus (Debian's) scrapes the running server with the admin token (the scrape
/// config of docs/operations.md), and its query API gives back what Parley recorded while an
/// aiortc echo call ran, a friend call was answered and a message was sent.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus"),
                "needs Debian's prometheus: scripts/test.sh installs it (apt-get install prometheus)"))
struct PrometheusScrapeTests {
    static let adminToken = "admin-token-for-tests-0123456789"

    @Test func prometheusScrapesTheServerAndAnswersQueriesOverWhatItRecorded() async throws {
        let parley = try await TestParley.start { $0.adminToken = Self.adminToken }
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            #expect(try await client.sendText(ann, dialog, "hello").status == .created)
            // A friend call, answered (signalling only: its setup steps).
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { annSocket.close(); boSocket.close() }
            let invite = try await CallSignallingTests.invite(annSocket, bo)
            let callID = try #require(invite["callId"] as? String, "\(invite)")
            _ = try await boSocket.next { $0.type == "call.incoming" }
            #expect(try await boSocket.command("call.accept", ["callId": callID, "sdp": CallSignallingTests.offer]).ok == true)
            // An echo call with media: aiortc hears and sees itself through the relay.
            let peer = try AiortcPeer(python: try AiortcPeer.python(), arguments: [])
            defer { peer.kill() }
            let offer = try #require(try await peer.next(timeout: .seconds(30)).sdp)
            let echo = try await client.call(.post, "/v1/calls/echo", json: ["sdp": offer], token: ann.accessToken)
            try peer.send(answer: try #require(echo["sdp"] as? String, "\(echo.text)"))
            let result = try await peer.next(timeout: .seconds(60))
            #expect(result.type == "result" && (result.videoFrames ?? 0) > 0, "\(result)")
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let config = """
                global:
                  scrape_interval: 1s
                scrape_configs:
                  - job_name: parley
                    authorization:
                      credentials: \(Self.adminToken)
                    static_configs:
                      - targets: ["127.0.0.1:\(client.port!)"]
                """
            try Data(config.utf8).write(to: work.appendingPathComponent("prometheus.yml"))
            let port = try Coturn.freePort()
            let log = work.appendingPathComponent("prometheus.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
            process.arguments = ["--config.file=\(work.path)/prometheus.yml", "--storage.tsdb.path=\(work.path)/data",
                                 "--web.listen-address=127.0.0.1:\(port)"]
            let output = try FileHandle(forWritingTo: log)
            process.standardOutput = output
            process.standardError = output
            try process.run()
            defer {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }

            func query(_ expression: String) async throws -> Double? {
                var components = URLComponents(string: "http://127.0.0.1:\(port)/api/v1/query")!
                components.queryItems = [URLQueryItem(name: "query", value: expression)]
                guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: components.url!.absoluteString), timeout: .seconds(5)),
                      response.status == .ok else { return nil }
                let body = try await response.body.collect(upTo: 1 << 20)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
                let results = (json?["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
                guard let value = results.first?["value"] as? [Any], let text = value.last as? String else { return nil }
                return Double(text)
            }

            func accepted(_ expression: String) async throws -> Bool {
                var components = URLComponents(string: "http://127.0.0.1:\(port)/api/v1/query")!
                components.queryItems = [URLQueryItem(name: "query", value: expression)]
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: components.url!.absoluteString), timeout: .seconds(5))
                let body = try await response.body.collect(upTo: 1 << 20)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
                return response.status == .ok && json?["status"] as? String == "success"
            }

            var up: Double?
            for _ in 0..<120 where up != 1 {
                up = try await query(#"up{job="parley"}"#)
                if up != 1 { try await Task.sleep(for: .milliseconds(250)) }
            }
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            try #require(up == 1, "Prometheus did not scrape the server; its log:\n\(logText.suffix(3000))")
            // Scrapes come every second: wait for one after the traffic above.
            var packets: Double?
            for _ in 0..<40 where (packets ?? 0) == 0 {
                packets = try await query(#"parley_relay_packets_total{direction="in"}"#)
                if (packets ?? 0) == 0 { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect((packets ?? 0) > 100, "the relay packet counter rose")
            #expect(try await query(#"parley_call_setup_seconds_count{step="accepted"}"#) == 1)
            #expect(try await query(#"parley_call_setup_seconds_count{step="incoming"}"#) == 1)
            #expect(try await query(#"parley_message_ack_seconds_count"#) == 1)
            #expect(try await query(#"parley_http_requests_total{route="/v1/auth/register",method="POST",status="201"}"#) == 2)
            #expect(try await query(#"parley_database_up{kind="sqlite"}"#) == 1)
            #expect(try await query(#"parley_mail_total{outcome="sent"}"#) == 2)
            #expect(try await query(#"histogram_quantile(0.99, sum by (le) (parley_http_request_duration_seconds_bucket))"#) != nil)

            // Every query of docs/grafana-dashboard.json is PromQL Prometheus accepts over this data.
            let dashboard = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/grafana-dashboard.json")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dashboard)) as? [String: Any]
            let expressions = (json?["panels"] as? [[String: Any]] ?? []).flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }
                .compactMap { $0["expr"] as? String }
            #expect(expressions.count >= 12)
            for expression in expressions {
                let concrete = expression.replacingOccurrences(of: "$__rate_interval", with: "1m")
                    .replacingOccurrences(of: "\"$job\"", with: "\"parley\"")
                #expect(try await accepted(concrete), "\(concrete)")
            }
        }
    }
}

import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import ParleyApp
import Testing

/// A real Prometheus (Debian's) scrapes the running server with the admin token, and its query
/// API gives back what Parley recorded: the exposition is one a real scraper takes.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus"),
                "needs Debian's prometheus: scripts/test.sh installs it (apt-get install prometheus)"))
struct PrometheusScrapeTests {
    static let adminToken = "admin-token-for-tests-0123456789"

    @Test func prometheusScrapesTheServerAndAnswersQueriesOverWhatItRecorded() async throws {
        let parley = try await TestParley.start { $0.adminToken = Self.adminToken }
        try await parley.test(.live) { client in
            _ = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
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
            let process = Process()
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

            var up: Double?
            for _ in 0..<120 where up != 1 {
                up = try await query(#"up{job="parley"}"#)
                if up != 1 { try await Task.sleep(for: .milliseconds(250)) }
            }
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            try #require(up == 1, "Prometheus did not scrape the server; its log:\n\(logText.suffix(3000))")
            #expect(try await query(#"parley_http_requests_total{route="/v1/auth/register",method="POST",status="201"}"#) == 1)
            #expect(try await query(#"parley_database_up{kind="sqlite"}"#) == 1)
            #expect(try await query(#"parley_mail_total{outcome="sent"}"#) == 1)
            #expect(try await query(#"histogram_quantile(0.99, sum by (le) (parley_http_request_duration_seconds_bucket))"#) != nil)
        }
    }
}

import Foundation
import Logging
import ParleyStorage
import Testing

/// The engines a store test runs on, and the private PostgreSQL the project's test command starts
/// (scripts/postgres-test-cluster.sh, which exports `PARLEY_TEST_POSTGRES_URL`).
public enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql

    public var testDescription: String { rawValue }

    /// The engine the server suites (TestParley) run on: `PARLEY_TEST_DATABASE=postgresql`
    /// (scripts/test.sh runs the store suites a second time so), else SQLite.
    public static var forServerSuites: TestEngine {
        ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE"] == "postgresql" ? .postgresql : .sqlite
    }
}

public enum TestPostgreSQL {
    /// The server's URL; records a failure (not a skip) when unset, like the Python peers.
    public static func serverURL(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let value = ProcessInfo.processInfo.environment["PARLEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(
            value,
            "PARLEY_TEST_POSTGRES_URL is not set, so the tests on PostgreSQL have no server. Run the project's test command (`make test`), which starts a private PostgreSQL (scripts/postgres-test-cluster.sh) and sets it, or: eval \"$(scripts/postgres-test-cluster.sh start)\".",
            sourceLocation: sourceLocation)
    }

    /// A new, empty database of its own on the test server; its URL (with `pool` connections).
    public static func freshDatabase(pool: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let server = try serverURL(sourceLocation: sourceLocation)
        let name = "parley_test_" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20))
        try await PostgreSQLURL(server).administer([#"CREATE DATABASE "\#(name)""#], logger: Logger(label: "test-postgresql"))
        var components = try #require(URLComponents(string: server))
        components.path = "/" + name
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "pool" } + [URLQueryItem(name: "pool", value: "\(pool)")]
        return try #require(components.string)
    }

    /// Drops the database `url` names (best effort: the cluster goes at the end of the run anyway).
    public static func drop(_ url: String) async {
        guard let server = try? serverURL(), let parsed = try? PostgreSQLURL(url) else { return }
        try? await PostgreSQLURL(server).administer([#"DROP DATABASE IF EXISTS "\#(parsed.database)" WITH (FORCE)"#], logger: Logger(label: "test-postgresql"))
    }
}

import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// `database.url` read: `postgres://user:password@host:5432/database?sslmode=require&pool=10`.
/// `sslmode` is `disable` (the default), `prefer` or `require` (certificates checked against the
/// system's roots); `pool` is how many connections (and storage threads) the node keeps.
public struct PostgreSQLURL: Sendable {
    public let host: String
    public let port: Int
    public let username: String
    public let database: String
    public let pool: Int
    let connection: PostgresConnection.Configuration

    public enum Problem: Error, CustomStringConvertible {
        case notAURL(String), unsupportedScheme(String), noUser, badSSLMode(String), badPool(String)

        public var description: String {
            switch self {
            case .notAURL(let text): "database.url is not a URL: \(text)"
            case .unsupportedScheme(let scheme): "database.url must start with postgres:// or postgresql://, not \(scheme)://"
            case .noUser: "database.url names no user (postgres://USER:PASSWORD@HOST/DATABASE)"
            case .badSSLMode(let mode): "database.url sslmode must be disable, prefer or require, not \(mode)"
            case .badPool(let pool): "database.url pool must be a number from 1 to 1000, not \(pool)"
            }
        }
    }

    public init(_ text: String, defaultPool: Int = 10) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme else { throw Problem.notAURL(text) }
        guard scheme == "postgres" || scheme == "postgresql" else { throw Problem.unsupportedScheme(scheme) }
        guard let user = components.user, !user.isEmpty else { throw Problem.noUser }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        let password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : (path.removingPercentEncoding ?? path)
        var tls = PostgresConnection.Configuration.TLS.disable
        var pool = defaultPool
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value ?? "" {
                case "disable": tls = .disable
                case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case "require", "verify-full": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: throw Problem.badSSLMode(item.value ?? "")
                }
            case "pool":
                guard let number = Int(item.value ?? ""), (1...1000).contains(number) else { throw Problem.badPool(item.value ?? "") }
                pool = number
            default: continue
            }
        }
        self.pool = pool
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        connection = configuration
    }

    /// The same server and credentials, another database (tests make one each) or pool size.
    public func with(database other: String? = nil, pool size: Int? = nil) -> PostgreSQLURL {
        PostgreSQLURL(host: host, port: port, username: username, database: other ?? database, pool: size ?? pool, base: connection)
    }

    private init(host: String, port: Int, username: String, database: String, pool: Int, base: PostgresConnection.Configuration) {
        self.host = host
        self.port = port
        self.username = username
        self.database = database
        self.pool = pool
        var configuration = base
        configuration.database = database
        connection = configuration
    }
}

extension PostgreSQLURL {
    /// Runs statements that may not run inside a transaction (`CREATE DATABASE`, `DROP DATABASE`)
    /// on a connection of their own: for tests, which make a database each, and for setting up.
    public func administer(_ statements: [String], logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: connection, id: 0, logger: logger)
        do {
            for statement in statements {
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                } catch let error as PSQLError {
                    throw PostgreSQLError(error, sql: statement)
                }
            }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `postgres://user@host:port/database?pool=N` (no password: for logs and test URLs only).
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)?pool=\(pool)" }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ParleyApp
import ParleyCore
import ParleyTestSupport
import Testing

/// A real Parley (SQLite, or PostgreSQL with PARLEY_TEST_DATABASE=postgresql; files, outbox mail)
/// in a temporary folder, on a clock the test moves.
struct TestParley: @unchecked Sendable {  // the router is only read before a test starts
    let directory: String
    let clock: ManualWallClock
    let config: ParleyConfiguration
    let parts: ParleyServer.Parts
    /// The PostgreSQL database is this server's own (made for it), dropped when its test ends; one
    /// a test handed in (several nodes on one database) is the test's to drop.
    var ownsDatabase = false

    var outbox: Outbox { Outbox(directory: directory + "/outbox") }

    static func start(
        in existing: String? = nil, _ configure: (inout ParleyConfiguration) -> Void = { _ in }
    ) async throws -> TestParley {
        let directory = existing ?? Self.newDirectory()
        var config = ParleyConfiguration()
        config.dataDirectory = directory
        config.httpPort = 0
        config.bcryptCost = 4   // the rules are the same at any cost; tests need not wait for it
        config.publicBaseURL = "http://parley.test"
        config.mediaHost = "127.0.0.1"
        config.mediaPort = 0
        // Suites sign many people up from one address; the limits' own tests set them.
        config.registrationsPerAddressPerHour = 10_000
        // A test that names its database (two nodes on one, SQLite on purpose) gets that one only.
        var probe = config
        probe.databaseURL = "\u{0}"
        configure(&probe)
        let choosesDatabase = probe.databaseURL != "\u{0}"
        if TestEngine.forServerSuites == .postgresql, !choosesDatabase {
            // A database of its own on the test PostgreSQL, named in the folder so that a restart
            // in the same folder finds the same data.
            let named = directory + "/postgresql-url"
            if let url = try? String(contentsOfFile: named, encoding: .utf8) {
                config.databaseURL = url
            } else {
                config.databaseURL = try await TestPostgreSQL.freshDatabase()
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try config.databaseURL.write(toFile: named, atomically: true, encoding: .utf8)
            }
            // What nodes sharing PostgreSQL must be given rather than make up.
            config.jwtSecret = String(repeating: "5eed", count: 16)
            config.adminToken = String(repeating: "ad", count: 16)
        }
        let made = config.databaseURL
        configure(&config)
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))   // 2026-11-22T12:00:00Z
        var logger = Logger(label: "parley-test")
        logger.logLevel = .warning
        let parts = try await ParleyServer.assemble(config, clock: clock, logger: logger)
        return TestParley(directory: directory, clock: clock, config: config, parts: parts,
                          ownsDatabase: !made.isEmpty && made == config.databaseURL)
    }

    /// Moves the server's clock on with the wall's, every 100 ms, until cancelled: for tests in
    /// which people act in real time and the order of what they did matters (call history, new
    /// messages), which a clock standing still would leave to the tie-breaking of random ids.
    func tickingInRealTime() -> Task<Void, Never> {
        Task { [clock] in
            var last = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                let now = ContinuousClock.now
                let elapsed = now - last
                clock.advance(by: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                last = now
            }
        }
    }

    /// A folder name of its own under the temporary directory (not created).
    static func newDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)").path
    }

    /// Runs `body` against the router in-process, then closes the database and removes the folder
    /// (unless `keepingFolder`: a test that reads the stopped node's files afterwards removes it).
    func test<T>(
        _ setup: TestingSetup = .router, keepingFolder: Bool = false, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "parley-test")
        logger.logLevel = .warning
        let app = ParleyServer.application(config, parts: parts, logger: logger)
        defer { if !keepingFolder { try? FileManager.default.removeItem(atPath: directory) } }
        do {
            let result = try await app.test(setup, body)
            try? await parts.database.close()
            if ownsDatabase { await TestPostgreSQL.drop(config.databaseURL) }
            return result
        } catch {
            try? await parts.database.close()   // an unclosed SQLite connection traps when released
            if ownsDatabase { await TestPostgreSQL.drop(config.databaseURL) }
            throw error
        }
    }
}

/// What came back from a request, with the JSON decoded loosely for assertions.
struct Reply: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let bytes: [UInt8]

    var text: String { String(decoding: bytes, as: UTF8.self) }
    var json: [String: any Sendable] { ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: any Sendable]) ?? [:] }
    var errorCode: String? { (json["error"] as? [String: any Sendable])?["code"] as? String }
    subscript(key: String) -> (any Sendable)? { json[key] }
    var user: [String: any Sendable] { json["user"] as? [String: any Sendable] ?? [:] }
}

extension TestClientProtocol {
    /// Sends `body` (a JSON-serialisable value, raw bytes, or nothing) and collects the reply.
    func call(
        _ method: HTTPRequest.Method, _ path: String, json: [String: any Sendable]? = nil, raw: [UInt8]? = nil,
        token: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        if let raw { body = ByteBuffer(bytes: raw) }
        return try await execute(uri: path, method: method, headers: headers, body: body) { response in
            Reply(status: response.status, headers: response.headers, bytes: Array(response.body.readableBytesView))
        }
    }
}

/// The outbox folder the default mail transport writes to.
struct Outbox {
    let directory: String

    /// The `n`th mail (1-based, oldest first) to `address`, waiting up to 5 s for it to be written.
    func mail(to address: String, number n: Int = 1) async throws -> String {
        for _ in 0..<100 {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
            let mails = names.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
                .filter { $0.range(of: "^To:.*\(NSRegularExpression.escapedPattern(for: address))", options: [.regularExpression, .caseInsensitive]) != nil
                    || $0.contains("<\(address)>") }
            if mails.count >= n { return mails[n - 1] }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw OutboxError.noMail(address, n)
    }

    func count(to address: String) -> Int {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".eml") }
        return names.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }.filter { $0.contains(address) }.count
    }

    enum OutboxError: Error { case noMail(String, Int), noToken }
}

/// The token carried in a mailed link (`…?token=…`).
func token(inMail mail: String) throws -> String {
    guard let match = mail.firstMatch(of: /token=([A-Za-z0-9_-]{20,})/) else { throw Outbox.OutboxError.noToken }
    return String(match.1)
}

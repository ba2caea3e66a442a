import Foundation
import Testing

/// A local stand-in for Apple's Push Notification service (Tests/Peers/apns_standin.py): HTTP/2
/// only, over TLS with a certificate of its own test CA, checking each request's JWT (against the
/// public key it is given), headers and payload the way APNs does, and answering the way APNs does.
///
/// Driven over stdio: its first line says the port and the CA file; each control command written
/// to its stdin gets one JSON line back. Closing stdin ends it. The interpreter comes from
/// `PARLEY_TEST_PYTHON`, a venv with `h2` and `cryptography` (scripts/test-peers.sh).
public final class APNsStandIn: @unchecked Sendable {  // immutable after start; the child is only signalled
    /// One request as the stand-in saw it, and what it answered.
    public struct Request: Decodable, Sendable {
        /// Seconds since 1970 when the request was complete.
        public var arrival: Double
        /// Which TLS connection (1, 2, …) carried it.
        public var connection: Int
        /// The ALPN protocol of that connection: always "h2" (anything else is refused).
        public var alpn: String?
        public var streamID: Int?
        public var method: String?
        public var path: String?
        public var token: String?
        /// Regular headers, lower-case names (pseudo-headers removed).
        public var headers: [String: String]
        public var body: String
        public var bodyBytes: Int
        public var jwt: JWT?
        /// The answer: status, APNs' `reason` when refused, and the `apns-id` header.
        public var status: Int
        public var reason: String?
        public var apnsID: String

        public struct JWT: Decodable, Sendable {
            public var token: String
            public var header: [String: String]
            public var claims: Claims
        }

        public struct Claims: Decodable, Sendable {
            public var iss: String?
            public var iat: Int?
        }

        public var arrivalDate: Date { Date(timeIntervalSince1970: arrival) }
    }

    public let port: Int
    /// The PEM of the test CA that signed the stand-in's certificate (for 127.0.0.1 and localhost).
    public let caFile: String
    public let workDirectory: URL
    private let process: ChildProcess
    private let stdin: Pipe
    private let control: ControlLines
    private let stderrLog: OutputLog

    /// `https://127.0.0.1:<port>`: the base URL for `APNsConfiguration.url`.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// Starts the stand-in for a provider key (its public half, PEM), key id, team id and bundle id,
    /// and waits until it listens.
    public static func start(publicKeyPEM: String, keyID: String, teamID: String, bundleID: String,
                             sourceLocation: SourceLocation = #_sourceLocation) async throws -> APNsStandIn {
        let python = try python(sourceLocation: sourceLocation)
        let work = try makeTemporaryDirectory(prefix: "apns-standin")
        let publicKey = work.appendingPathComponent("provider-public.pem")
        try Data(publicKeyPEM.utf8).write(to: publicKey)

        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", AiortcPeer.script(named: "apns_standin.py"), "--workdir", work.path,
                             "--public-key", publicKey.path, "--key-id", keyID, "--team-id", teamID, "--bundle-id", bundleID]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let control = ControlLines(stdout: stdout.fileHandleForReading)
        let log = OutputLog()
        drain(stderr.fileHandleForReading, chunk: { log.append($0) })
        try process.run()

        struct Ready: Decodable { var port: Int; var ca: String }
        do {
            let line = try await control.next(timeout: .seconds(20), log: log)
            guard let ready = try? JSONDecoder().decode(Ready.self, from: Data(line.utf8)) else {
                throw ChildProcessError.badLine("the APNs stand-in", line)
            }
            return APNsStandIn(process: process, stdin: stdin, control: control, log: log,
                               port: ready.port, caFile: ready.ca, work: work)
        } catch {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: work)
            throw error
        }
    }

    private init(process: ChildProcess, stdin: Pipe, control: ControlLines, log: OutputLog, port: Int, caFile: String, work: URL) {
        self.process = process
        self.stdin = stdin
        self.control = control
        self.stderrLog = log
        self.port = port
        self.caFile = caFile
        self.workDirectory = work
    }

    /// The interpreter; records a failure (not a skip) when unset.
    public static func python(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let value = ProcessInfo.processInfo.environment["PARLEY_TEST_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(
            value,
            "PARLEY_TEST_PYTHON is not set, so the push tests cannot start the APNs stand-in. Run the project's test command, which makes a venv with h2 and cryptography and sets it (or: python -m venv v && v/bin/pip install h2==4.4.1 cryptography).",
            sourceLocation: sourceLocation)
    }

    /// From now on, pushes to `token` are answered 410 `Unregistered`.
    public func unregister(token: String) async throws {
        try await command(["op": "unregister", "token": token])
    }

    /// The next `count` requests, and every request for `seconds` from now, are answered `status`
    /// with `reason` (and `Retry-After`, when given) before anything else is checked.
    public func fail(count: Int = 0, seconds: Double = 0, status: Int = 503, reason: String = "ServiceUnavailable",
                     retryAfter: Int? = nil) async throws {
        var command: [String: Any] = ["op": "fail", "count": count, "seconds": seconds, "status": status, "reason": reason]
        if let retryAfter { command["retry_after"] = retryAfter }
        try await self.command(command)
    }

    /// Requests that arrive from `after` seconds from now, for `seconds`, are never answered
    /// (except those a `fail` still answers).
    public func hold(after: Double = 0, seconds: Double) async throws {
        try await command(["op": "hold", "after": after, "seconds": seconds])
    }

    /// Every provider token seen so far is answered 403 `ExpiredProviderToken` from now on.
    public func expireProviderTokens() async throws {
        try await command(["op": "expire_tokens"])
    }

    /// Every request so far, in arrival order.
    public func requests() async throws -> [Request] {
        struct Answer: Decodable { var requests: [Request] }
        let line = try await exchange(["op": "requests"])
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(line.utf8)).requests
        } catch {
            throw ChildProcessError.badLine("the APNs stand-in", "\(error): \(line)")
        }
    }

    /// What the stand-in wrote to stderr, for failure messages.
    public var stderr: String { stderrLog.text }

    /// Closes its stdin (it exits), kills it if it lingers, and removes its directory.
    public func stop() {
        try? stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        // SIGKILL: what did not end on its stdin closing in two seconds is ended at once.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: workDirectory)
    }

    private func command(_ command: [String: Any]) async throws {
        let line = try await exchange(command)
        guard line.contains("\"ok\": true") else { throw ChildProcessError.badLine("the APNs stand-in", line) }
    }

    private func exchange(_ command: [String: Any]) async throws -> String {
        let data = try JSONSerialization.data(withJSONObject: command)
        return try await control.exchange(data + Data("\n".utf8), writer: stdin.fileHandleForWriting, log: stderrLog)
    }
}

/// A stand-in's stdout as lines; one command and its answer at a time.
actor ControlLines {
    private let lines: AsyncStream<String>
    private let who: String

    init(stdout: FileHandle, who: String = "the APNs stand-in") {
        self.who = who
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let buffer = LineBuffer()
        drain(stdout,
              chunk: { data in for line in buffer.append(data) { continuation.yield(line) } },
              end: { continuation.finish() })
        lines = stream
    }

    func exchange(_ command: Data, writer: FileHandle, log: OutputLog) async throws -> String {
        try writer.write(contentsOf: command)
        return try await next(timeout: .seconds(10), log: log)
    }

    func next(timeout: Duration, log: OutputLog) async throws -> String {
        try await nextLine(of: lines, timeout: timeout, who: who, log: log)
    }
}

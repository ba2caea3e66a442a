import Foundation
import NIOCore
import NIOPosix
import Testing

/// A real aiosmtpd (https://aiosmtpd.aio-libs.org) process delivering into a Maildir, for live
/// SMTP tests. The interpreter comes from `PARLEY_TEST_PYTHON`, which the project's test command
/// (`make test`) points at a venv with aiosmtpd installed.
public final class LiveSMTPServer: @unchecked Sendable {  // immutable after start; the child is only signalled
    public let port: Int
    public let workDirectory: URL
    public let maildir: URL
    public let logFile: URL
    private let process: ChildProcess

    /// The Python interpreter for aiosmtpd; records a failure (not a skip) when unset.
    public static func python(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let value = ProcessInfo.processInfo.environment["PARLEY_TEST_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(
            value,
            "PARLEY_TEST_PYTHON is not set, so the live SMTP tests cannot start aiosmtpd. Run the project's test command (`make test`), which creates a venv with aiosmtpd and sets it.",
            sourceLocation: sourceLocation)
    }

    /// Starts `python -m aiosmtpd -n -l 127.0.0.1:<port> -c aiosmtpd.handlers.Mailbox <extra> <maildir>`
    /// and waits until it accepts connections.
    public static func start(arguments extra: [String] = [], in workDirectory: URL? = nil) async throws -> LiveSMTPServer {
        let python = try python()
        let work = try workDirectory ?? makeTemporaryDirectory(prefix: "aiosmtpd")
        let maildir = work.appendingPathComponent("Maildir")
        let port = try await freePort()
        let arguments = ["-u", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox"]
            + extra + [maildir.path]
        return try await launch(python: python, arguments: arguments, port: port, work: work, maildir: maildir)
    }

    /// Starts a Python script (passed with `-c`) that runs aiosmtpd itself; `{port}` and
    /// `{maildir}` in `scriptArguments` are substituted. For features the CLI lacks (AUTH).
    public static func startScript(_ script: String, scriptArguments: [String], in workDirectory: URL) async throws -> LiveSMTPServer {
        let python = try python()
        let maildir = workDirectory.appendingPathComponent("Maildir")
        let port = try await freePort()
        let substituted = scriptArguments.map {
            $0.replacingOccurrences(of: "{port}", with: String(port)).replacingOccurrences(of: "{maildir}", with: maildir.path)
        }
        return try await launch(
            python: python, arguments: ["-u", "-c", script] + substituted, port: port, work: workDirectory, maildir: maildir)
    }

    private static func launch(python: String, arguments: [String], port: Int, work: URL, maildir: URL) async throws -> LiveSMTPServer {
        let logFile = work.appendingPathComponent("aiosmtpd.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let server = LiveSMTPServer(process: process, port: port, workDirectory: work, maildir: maildir, logFile: logFile)
        do {
            try await server.waitUntilListening()
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    private init(process: ChildProcess, port: Int, workDirectory: URL, maildir: URL, logFile: URL) {
        self.process = process
        self.port = port
        self.workDirectory = workDirectory
        self.maildir = maildir
        self.logFile = logFile
    }

    /// Kills the server, waits for it to exit and deletes its work directory.
    ///
    /// SIGKILL: the stand-in keeps nothing worth a clean exit, and the test waits for none.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: workDirectory)
    }

    /// What aiosmtpd printed so far, for failure messages.
    public var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// The raw messages in the Maildir's `new` folder, oldest name first.
    public func deliveredMessages() throws -> [String] {
        let new = maildir.appendingPathComponent("new")
        guard FileManager.default.fileExists(atPath: new.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: new.path).sorted().map {
            try String(contentsOf: new.appendingPathComponent($0), encoding: .utf8)
        }
    }

    private func waitUntilListening() async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw LiveServerError.exited(status: process.terminationStatus, log: log)
            }
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.milliseconds(500))
            if let channel = try? await bootstrap.connect(host: "127.0.0.1", port: port).get() {
                try? await channel.close()
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LiveServerError.notListening(port: port, log: log)
    }

    public enum LiveServerError: Error, CustomStringConvertible {
        case exited(status: Int32, log: String)
        case notListening(port: Int, log: String)

        public var description: String {
            switch self {
            case .exited(let status, let log): return "aiosmtpd exited with status \(status):\n\(log)"
            case .notListening(let port, let log): return "aiosmtpd did not listen on port \(port):\n\(log)"
            }
        }
    }

    /// A port that was free a moment ago (bound to 0, read back, released).
    public static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}

/// A fresh directory under the system temporary folder.
public func makeTemporaryDirectory(prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

import Foundation
import NIOCore
import NIOPosix
import ParleyTestSupport
import Testing

/// A real `parley` process as one node of several on a shared PostgreSQL database: its own data
/// folder (and so its own mail outbox), HTTP port and relay port, the token key and admin token
/// every node shares, and its log kept in its folder for a failing test to show.
struct ParleyNode: @unchecked Sendable {   // the child is only signalled after launch
    let name: String
    let data: URL
    let port: Int
    /// The relay's port, UDP and (ICE over TCP) TCP alike: what the answers of calls whose legs
    /// this node holds point at.
    let mediaPort: Int
    let http: LiveHTTP
    private let process: ChildProcess

    var outbox: Outbox { Outbox(directory: data.path + "/outbox") }
    var logFile: URL { data.appendingPathComponent("parley.log") }
    var isRunning: Bool { process.isRunning }

    static let jwtSecret = String(repeating: "5eed", count: 16)
    static let adminToken = String(repeating: "ad", count: 16)

    /// Starts the built `parley` on `databaseURL` (it does not wait for it: `waitUntilServing`).
    static func start(_ name: String, databaseURL: String) async throws -> ParleyNode {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/debug/parley").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing: run `swift build --build-tests` (make test does)")
        let data = try makeTemporaryDirectory(prefix: "parley-\(name)")
        let port = try await LiveSMTPServer.freePort()
        let mediaPort = try await freeMediaPort()

        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--config", "/nonexistent.yaml", "--data", data.path, "--port", String(port)]
        var environment = ProcessInfo.processInfo.environment
        environment.merge([
            "DATABASE_URL": databaseURL,
            "AUTH_JWT_SECRET": jwtSecret,
            "ADMIN_TOKEN": adminToken,
            "AUTH_BCRYPT_COST": "4",
            "LOG_LEVEL": "info",
            "MEDIA_HOST": "127.0.0.1",
            "MEDIA_PORT": String(mediaPort),
            "MEDIA_ANNOUNCED_ADDRESS": "127.0.0.1",
        ]) { _, new in new }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: data.appendingPathComponent("parley.log").path, contents: nil)
        let log = try FileHandle(forWritingTo: data.appendingPathComponent("parley.log"))
        process.standardOutput = log
        process.standardError = log
        try process.run()
        return ParleyNode(name: name, data: data, port: port, mediaPort: mediaPort, http: LiveHTTP(port: port), process: process)
    }

    /// Waits until `/health` answers (migrations done), or fails with the node's log.
    func waitUntilServing(within limit: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw NodeError.exited(name, process.terminationStatus) }
            if (try? await http.call("GET", "/health"))?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw NodeError.notServing(name, port, limit)
    }

    /// SIGKILL: the node dies as a machine would, with no goodbye to the others.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The last lines the process logged.
    func logTail(lines: Int = 40) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// A port free for UDP and TCP alike on 127.0.0.1 (the relay takes the same number for both).
    static func freeMediaPort() async throws -> Int {
        for _ in 0..<20 {
            let udp = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
            let port = udp.localAddress?.port ?? 0
            let tcp = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: port).get()
            try await udp.close()
            if let tcp {
                try await tcp.close()
                return port
            }
        }
        throw NodeError.noFreePort
    }

    enum NodeError: Error, CustomStringConvertible {
        case exited(String, Int32), notServing(String, Int, Duration), noFreePort
        var description: String {
            switch self {
            case .exited(let name, let status): "\(name) exited (status \(status)) before serving (its log follows)"
            case .notServing(let name, let port, let limit): "\(name) did not serve on port \(port) within \(limit) (its log follows)"
            case .noFreePort: "no port free for both UDP and TCP on 127.0.0.1"
            }
        }
    }
}

/// Nodes on one fresh PostgreSQL database of the test server (scripts/postgres-test-cluster.sh).
enum ParleyNodes {
    /// Starts `count` nodes together (so their migrations meet at the advisory lock), runs `body`
    /// once all serve, then kills them, prints their logs when `body` threw, and drops the database.
    static func with(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation,
                     _ body: ([ParleyNode]) async throws -> Void) async throws {
        let url = try await TestPostgreSQL.freshDatabase(pool: 4, sourceLocation: sourceLocation)
        var nodes: [ParleyNode] = []
        do {
            for n in 1...count { nodes.append(try await ParleyNode.start("node\(n)", databaseURL: url)) }
            for node in nodes { try await node.waitUntilServing() }
            try await body(nodes)
        } catch {
            for node in nodes { print("\(node.name) (port \(node.port), media \(node.mediaPort)) logged:\n\(node.logTail())") }
            finish(nodes)
            await TestPostgreSQL.drop(url)
            throw error
        }
        finish(nodes)
        await TestPostgreSQL.drop(url)
    }

    private static func finish(_ nodes: [ParleyNode]) {
        for node in nodes {
            node.kill9()
            try? FileManager.default.removeItem(at: node.data)
        }
    }
}

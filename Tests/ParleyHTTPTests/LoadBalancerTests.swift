import Foundation
import ParleyTestSupport
import Testing

/// docs/examples/haproxy.cfg in front of two real `parley` processes on one PostgreSQL, as the
/// deployment guide sets them up: everything goes through HAProxy — sign-up, friends, the realtime
/// sockets — and the two people's sockets end on different nodes (checked on each node's
/// /admin/status), so their chat crosses from one node to the other. Then a node stops: HAProxy
/// sends everything to the one left, where Bo's socket reconnects and still hears Ann.
@Suite(.liveMedia, .enabled(if: HAProxy.isInstalled, "needs Debian's haproxy: scripts/test.sh installs it (scripts/install-deps.sh haproxy)"))
struct LoadBalancerTests {
    static let adminToken = String(repeating: "ad", count: 16)

    @Test func twoNodesBehindTheExampleHAProxyCarryAChatFromOneNodeToTheOther() async throws {
        let url = try await TestPostgreSQL.freshDatabase()
        let shared = try makeTemporaryDirectory(prefix: "parley-lb")
        defer { try? FileManager.default.removeItem(at: shared) }
        // What every node is given alike (docs/deploying.md): the database, the secrets, one files
        // folder; and, for this test, one mail outbox to read the verification links from.
        let environment = [
            "DATABASE_URL": url, "AUTH_JWT_SECRET": String(repeating: "5eed", count: 16), "ADMIN_TOKEN": Self.adminToken,
            "FILES_DIRECTORY": shared.path + "/files", "MAIL_OUTBOX_DIRECTORY": shared.path + "/outbox",
            "HTTP_TRUSTED_PROXIES": "127.0.0.1",
        ]
        var nodes: [(process: ParleyProcess, http: LiveHTTP)] = []
        defer { for node in nodes { node.process.kill9() } }
        for n in 1...2 {
            let port = try await LiveSMTPServer.freePort()
            let process = try ParleyProcess.start(data: shared.path + "/node\(n)", port: port, environment: environment)
            nodes.append((process, LiveHTTP(port: port)))
            try await nodes[n - 1].http.waitUntilHealthy(process)
        }
        let proxy = try await HAProxy.start(example: "docs/examples/haproxy.cfg", nodes: nodes.map(\.http.port))
        defer { proxy.stop() }
        let front = LiveHTTP(port: proxy.port)

        let outbox = Outbox(directory: shared.path + "/outbox")
        let ann = try await front.signUp("Ann", "ann@example.com", outbox: outbox)
        let bo = try await front.signUp("Bo", "bo@example.com", outbox: outbox)
        #expect(!ann.token.isEmpty && !bo.token.isEmpty)
        _ = try await front.call("POST", "/v1/friends/requests", ["userId": bo.id], token: ann.token)
        #expect(try await front.call("POST", "/v1/friends/requests", ["userId": ann.id], token: bo.token).status == 200)
        let opened = try await front.call("POST", "/v1/dialogs", ["type": "private", "userId": bo.id], token: ann.token)
        let dialog = try #require((opened.json["dialog"] as? [String: Any])?["id"] as? String, "\(opened.json)")

        // Each socket through HAProxy, to the node with the fewest: one on each.
        let (annSocket, _) = try await RealtimeClient.connect(port: proxy.port, token: ann.token)
        defer { annSocket.close() }
        let annNode = try await Self.connections(nodes[0].http) == 1 ? 0 : 1
        let (boSocket, _) = try await RealtimeClient.connect(port: proxy.port, token: bo.token)
        var connections: [Int] = []
        for node in nodes { connections.append(try await Self.connections(node.http)) }
        #expect(connections == [1, 1], "one socket on each node: \(connections)")

        // Ann writes through HAProxy; Bo's socket on the other node hears it; and back.
        func send(_ person: LiveHTTP.Person, _ text: String) async throws -> Int {
            try await front.call("POST", "/v1/dialogs/\(dialog)/messages",
                                 ["clientMessageId": UUID().uuidString, "kind": "text", "text": text], token: person.token).status
        }
        #expect(try await send(ann, "hello across nodes") == 201)
        #expect(try await boSocket.next { $0.type == "message.new" }.message?["text"] as? String == "hello across nodes")
        #expect(try await send(bo, "and back") == 201)
        let back = try await annSocket.next { $0.type == "message.new" && $0.message?["text"] as? String == "and back" }
        #expect(back.message?["text"] as? String == "and back")

        // The node holding Bo's socket stops; HAProxy serves everything from the other, where
        // Bo reconnects and Ann's next message reaches him.
        _ = await nodes[1 - annNode].process.terminate()
        boSocket.close()
        var answered = 0
        for _ in 0..<10 where (try? await front.call("GET", "/health/ready"))?.status == 200 { answered += 1 }
        #expect(answered == 10, "every request answered by the node left")
        let (again, _) = try await RealtimeClient.connect(port: proxy.port, token: bo.token)
        defer { again.close() }
        #expect(try await send(ann, "still here") == 201)
        #expect(try await again.next { $0.type == "message.new" }.message?["text"] as? String == "still here")

        await TestPostgreSQL.drop(url)
    }

    /// Realtime sockets open on `node` (its own /admin/status, not through HAProxy).
    static func connections(_ node: LiveHTTP) async throws -> Int {
        let status = try await node.call("GET", "/admin/status", token: adminToken)
        return try #require(status.json["connections"] as? Int, "\(status.json)")
    }
}

/// Debian's HAProxy, run in the foreground on a configuration file of the repository with the
/// example's addresses swapped for the test's: its listener for a free loopback port, its two
/// servers for the nodes' ports.
final class HAProxy: @unchecked Sendable {  // the child is only signalled after launch
    static let executable = "/usr/sbin/haproxy"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let port: Int
    private let process: ChildProcess
    private let directory: URL

    static func start(example path: String, nodes: [Int]) async throws -> HAProxy {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let port = try await LiveSMTPServer.freePort()
        let swaps = [("bind :80\n", "bind 127.0.0.1:\(port)\n"), ("10.0.0.11:8080", "127.0.0.1:\(nodes[0])"),
                     ("10.0.0.12:8080", "127.0.0.1:\(nodes[1])")]
        for (example, mine) in swaps {
            try #require(text.contains(example), "\(path) no longer has \(example.debugDescription): update LoadBalancerTests")
            text = text.replacingOccurrences(of: example, with: mine)
        }
        let directory = try makeTemporaryDirectory(prefix: "parley-haproxy")
        let config = directory.appendingPathComponent("haproxy.cfg")
        try text.write(to: config, atomically: true, encoding: .utf8)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-db", "-f", config.path]   // -db: in the foreground, not a daemon
        let log = directory.appendingPathComponent("haproxy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let proxy = HAProxy(port: port, process: process, directory: directory)
        // Up once it answers, and both nodes pass their first check.
        let front = LiveHTTP(port: port)
        for _ in 0..<100 {
            if (try? await front.call("GET", "/health/ready"))?.status == 200 { return proxy }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        proxy.stop()
        throw HAProxyError.didNotStart(output.suffix(3000).description)
    }

    private init(port: Int, process: ChildProcess, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

enum HAProxyError: Error, CustomStringConvertible {
    case didNotStart(String)

    var description: String {
        switch self {
        case .didNotStart(let log): "haproxy did not start; its output:\n\(log)"
        }
    }
}

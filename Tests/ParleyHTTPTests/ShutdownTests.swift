import Foundation
import ParleyTestSupport
import Testing

/// SIGTERM to the real process during a live call: both sides hear `call.ended server_shutdown`
/// before their sockets close, the process exits cleanly, and after a restart the call is in the
/// history — the calls end first, the database closes last.
@Suite struct ShutdownTests {
    /// The data folder and what the server writes into it are the owner's alone.
    @Test func theDataFolderIsOwnerOnly() async throws {
        let live = try await LiveFriends.start(prefix: "parley-modes")
        defer { live.server.kill9(); try? FileManager.default.removeItem(at: live.data) }
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        let outbox = live.data.path + "/outbox"
        let mails = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".eml") }
        #expect(!mails.isEmpty)
        for path in [outbox, live.data.path + "/files", live.data.path + "/avatars"] where FileManager.default.fileExists(atPath: path) {
            let bits = try mode(path)
            #expect(bits & 0o077 == 0, "\(path): \(String(bits, radix: 8))")
        }
        for path in [live.data.path + "/parley.sqlite", live.data.path + "/jwt-secret", outbox + "/" + mails[0]] {
            let bits = try mode(path)
            #expect(bits & 0o077 == 0, "\(path): \(String(bits, radix: 8))")
        }
    }

    @Test func sigtermEndsLiveCallsAndKeepsTheirRecords() async throws {
        let live = try await LiveFriends.start(prefix: "parley-shutdown")
        defer { try? FileManager.default.removeItem(at: live.data) }
        let (data, port, http) = (live.data, live.port, live.http)
        var server = live.server
        let (annSocket, boSocket, callID) = try await live.answeredCall()
        defer { annSocket.close(); boSocket.close() }

        let stopping = Date()
        let status = await server.terminate()
        for (name, socket) in [("Ann", annSocket), ("Bo", boSocket)] {
            let ended = try await socket.next { $0.type == "call.ended" }
            #expect(ended["callId"] as? String == callID, "\(name)")
            #expect(ended["reason"] as? String == "server_shutdown", "\(name): \(ended)")
            let close = try await socket.closeFrame()
            #expect(close != nil, "\(name)'s socket got a close frame")
        }
        #expect(status == 0, "parley exited cleanly after SIGTERM")
        print("shutdown: SIGTERM → call.ended server_shutdown on both sockets, close frames, exit status \(status)")

        server = try ParleyProcess.start(data: data.path, port: port)
        defer { server.kill9() }
        try await http.waitUntilHealthy(server)
        let annAgain = try await http.logIn("ann@example.com")
        let calls = try await http.call("GET", "/v1/calls", token: annAgain.token).json["calls"] as? [[String: Any]] ?? []
        #expect(calls.map { $0["id"] as? String } == [callID], "the call's record survived the shutdown: \(calls)")
        #expect(calls.first?["outcome"] as? String == "answered")
        // What the sockets' close writes (last seen) went in before the database closed.
        let bo = try await http.call("GET", "/v1/users/\(live.bo.id)", token: annAgain.token).json["user"] as? [String: Any] ?? [:]
        let lastSeen = (bo["lastSeen"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
        #expect(lastSeen.map { $0 >= stopping.addingTimeInterval(-1) } == true,
                "Bo's last seen is the shutdown's (\(stopping)): \(bo)")
    }
}

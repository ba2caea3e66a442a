import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyTestSupport
import Testing

/// Acknowledged means stored: messages answered 201 before a `kill -9` are all there after restart.
@Suite struct CrashSafetyTests {
    @Test func acknowledgedMessagesSurviveKillNine() async throws {
        let live = try await LiveFriends.start(prefix: "parley-crash")
        defer { try? FileManager.default.removeItem(at: live.data) }
        let (data, port, http, ann, bo) = (live.data, live.port, live.http, live.ann, live.bo)
        var server = live.server
        let dialog = try #require((try await http.call("POST", "/v1/dialogs", ["type": "private", "userId": bo.id], token: ann.token).json["dialog"] as? [String: Any])?["id"] as? String)

        // Bo's phone is online through it all, then catches up with `sync` after the restart.
        let (boPhone, hello) = try await RealtimeClient.connect(port: port, token: bo.token)
        let base = try #require(hello["latestSeq"] as? Int)

        // Two writers send as fast as they can; the server dies under them.
        let acknowledged = AcknowledgedIDs()
        let writers = (0..<2).map { writer in
            Task {
                for n in 0..<10_000 {
                    guard let reply = try? await http.call("POST", "/v1/dialogs/\(dialog)/messages",
                        ["clientMessageId": "w\(writer)-\(n)", "kind": "text", "text": "message \(n) from writer \(writer)"], token: ann.token),
                          reply.status == 201, let id = (reply.json["message"] as? [String: Any])?["id"] as? String
                    else { return }
                    await acknowledged.add(id)
                }
            }
        }
        // Kill once a good number are acknowledged (however busy the machine is), mid-stream.
        for _ in 0..<400 where await acknowledged.ids.count < 100 { try await Task.sleep(for: .milliseconds(50)) }
        server.kill9()
        for writer in writers { await writer.value }
        let before = await acknowledged.ids
        #expect(before.count > 20, "the writers got going before the kill (\(before.count) acknowledged)")

        server = try ParleyProcess.start(data: data.path, port: port)
        defer { server.kill9() }
        try await http.waitUntilHealthy(server)

        // What Bo's phone saw live, up to the first gap in its sequence; then `sync` from there.
        let liveFrames = await boPhone.received().filter { $0.type == "message.new" }
        boPhone.close()
        let seen = Set(liveFrames.compactMap(\.seq))
        var caughtUpFrom = base
        while seen.contains(caughtUpFrom + 1) { caughtUpFrom += 1 }
        var delivered = Set(liveFrames.filter { ($0.seq ?? .max) <= caughtUpFrom }.compactMap { ($0["message"] as? [String: Any])?["id"] as? String })
        let (again, _) = try await RealtimeClient.connect(port: port, token: bo.token)
        defer { again.close() }
        var since = caughtUpFrom, more = true
        while more {
            let reply = try await again.command("sync", ["since": since, "limit": 1000])
            try #require(reply.ok == true, "\(reply)")
            let frames = await again.received().filter { $0.type == "message.new" }
            for frame in frames {
                if let id = (frame["message"] as? [String: Any])?["id"] as? String { delivered.insert(id) }
                since = max(since, frame.seq ?? since)
            }
            _ = try? await again.events("message.new", count: frames.count, timeout: .milliseconds(10))   // taken
            more = reply["more"] as? Bool ?? false
        }
        let missed = Set(await acknowledged.ids as [String]).subtracting(delivered)
        #expect(missed.isEmpty, "\(missed.count) acknowledged messages never reached Bo's phone, live or by sync")
        print("crash-safety: Bo's phone saw \(liveFrames.count) live up to seq \(caughtUpFrom), then \(delivered.count) in all after sync")
        let bob = try await http.logIn("bo@example.com")
        var stored = Set<String>()
        var cursor: String?
        repeat {
            let query = cursor.map { "?limit=100&before=\($0)" } ?? "?limit=100"
            let page = try await http.call("GET", "/v1/dialogs/\(dialog)/messages\(query)", token: bob.token)
            for message in page.json["messages"] as? [[String: Any]] ?? [] { stored.insert(message["id"] as? String ?? "") }
            cursor = page.json["nextCursor"] as? String
        } while cursor != nil
        let lost = Set(before).subtracting(stored)
        #expect(lost.isEmpty, "\(lost.count) of \(before.count) acknowledged messages were lost")
        print("crash-safety: \(before.count) messages acknowledged before kill -9, \(stored.count) stored after restart")
    }
}

actor AcknowledgedIDs {
    var ids: [String] = []
    func add(_ id: String) { ids.append(id) }
}

/// The real `parley` on a free port with a data folder of its own, and Ann and Bo, signed up
/// through it and friends.
struct LiveFriends {
    let data: URL
    let port: Int
    let server: ParleyProcess
    let http: LiveHTTP
    let ann: LiveHTTP.Person
    let bo: LiveHTTP.Person

    static func start(prefix: String, environment: [String: String] = [:]) async throws -> LiveFriends {
        let data = try makeTemporaryDirectory(prefix: prefix)
        let port = try await LiveSMTPServer.freePort()
        let server = try ParleyProcess.start(data: data.path, port: port, environment: environment)
        let http = LiveHTTP(port: port)
        try await http.waitUntilHealthy(server)
        let outbox = Outbox(directory: data.path + "/outbox")
        let ann = try await http.signUp("Ann", "ann@example.com", outbox: outbox)
        let bo = try await http.signUp("Bo", "bo@example.com", outbox: outbox)
        _ = try await http.call("POST", "/v1/friends/requests", ["userId": bo.id], token: ann.token)
        _ = try await http.call("POST", "/v1/friends/requests", ["userId": ann.id], token: bo.token)
        return LiveFriends(data: data, port: port, server: server, http: http, ann: ann, bo: bo)
    }

    /// Ann and Bo on their sockets, and Ann's audio call that Bo answered (real offers, no media).
    /// A failure on the way says what the server printed (its folder goes with the test).
    func answeredCall() async throws -> (annSocket: RealtimeClient, boSocket: RealtimeClient, callID: String) {
        do {
            return try await placeAnsweredCall()
        } catch {
            Issue.record("the answered call failed: \(error); the server \(server.outputTail())")
            throw error
        }
    }

    private func placeAnsweredCall() async throws -> (annSocket: RealtimeClient, boSocket: RealtimeClient, callID: String) {
        let (annSocket, _) = try await RealtimeClient.connect(port: port, token: ann.token)
        let (boSocket, _) = try await RealtimeClient.connect(port: port, token: bo.token)
        let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "audio", "sdp": CallSignallingTests.offer])
        let callID = try #require(invite["callId"] as? String, "\(invite)")
        _ = try await boSocket.next { $0.type == "call.incoming" }
        #expect(try await boSocket.command("call.accept", ["callId": callID, "sdp": CallSignallingTests.offer]).ok == true)
        _ = try await annSocket.next { $0.type == "call.accepted" }
        return (annSocket, boSocket, callID)
    }
}

/// The real `parley` executable, built beside the tests.
struct ParleyProcess {
    let process: ChildProcess
    /// Where its standard output and error go (`parley-process.log` in its data folder, appended to).
    let log: String

    static func start(data: String, port: Int, environment extra: [String: String] = [:]) throws -> ParleyProcess {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/debug/parley").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing: run `swift build --build-tests` (make test does)")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--config", "/nonexistent.yaml", "--data", data, "--port", String(port)]
        var environment = ProcessInfo.processInfo.environment
        environment["AUTH_BCRYPT_COST"] = "4"
        environment["LOG_LEVEL"] = "warning"
        environment["MEDIA_HOST"] = "127.0.0.1"
        environment["MEDIA_PORT"] = "0"
        environment["LIMITS_MESSAGES_PER_MINUTE"] = "1000000"   // the drills send bursts faster than any person
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let log = data + "/parley-process.log"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return ParleyProcess(process: process, log: log)
    }

    /// The end of what it printed, and whether it still runs: for a test's failure message.
    func outputTail() -> String {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return "\(process.isRunning ? "running" : "exited with \(process.terminationStatus)"); output: \(text.suffix(2_000))"
    }

    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGTERM, as a service manager stops it; returns the exit status once it has exited.
    func terminate() async -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<300 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill9(); return -1 }
        return process.terminationStatus
    }
}

/// A plain HTTP client over real sockets (URLSession), for tests against a separate process.
struct LiveHTTP: Sendable {
    let port: Int

    struct Answer: @unchecked Sendable {
        let status: Int
        let json: [String: Any]
    }
    struct Person: Sendable { let id: String; let token: String }

    func call(_ method: String, _ path: String, _ body: [String: any Sendable]? = nil, token: String? = nil) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 10
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, json: json)
    }

    /// Up to 30 s: a debug build starting (and recovering a killed one's WAL) beside the whole
    /// suite on two cores is slow. `process` says what it printed when it did not come up.
    func waitUntilHealthy(_ process: ParleyProcess? = nil) async throws {
        for _ in 0..<600 {
            if (try? await call("GET", "/health"))?.status == 200 { return }
            if let process, !process.process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("parley did not become healthy on port \(port); \(process?.outputTail() ?? "")")
    }

    func signUp(_ name: String, _ email: String, outbox: Outbox) async throws -> Person {
        _ = try await call("POST", "/v1/auth/register", ["name": name, "email": email, "password": "correct horse", "dateOfBirth": "2000-01-01"])
        _ = try await call("POST", "/v1/auth/verify", ["token": try token(inMail: try await outbox.mail(to: email))])
        return try await logIn(email)
    }

    func logIn(_ email: String) async throws -> Person {
        let reply = try await call("POST", "/v1/auth/login", ["email": email, "password": "correct horse"])
        return Person(id: (reply.json["user"] as? [String: Any])?["id"] as? String ?? "", token: reply.json["accessToken"] as? String ?? "")
    }
}

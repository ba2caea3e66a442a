import Foundation
import HummingbirdTesting
import ParleyApp
import Logging
import ParleyCore
import ParleyStorage
import ParleyTestSupport
import Testing

/// Two Parley servers on one PostgreSQL, each with its own folder, mail outbox and relay, as two
/// nodes behind a load balancer would be: what one stores, the other reads — accounts and
/// sign-in, friend requests, dialogs and messages, blocks, and each user's numbered event log,
/// which `sync` replays alike on either node; live delivery from one node's commit to the other's
/// sockets; typing, logout and presence across nodes; login limits counted together.
@Suite struct TwoNodesTests {
    /// Two servers on one fresh PostgreSQL database with the token key they share, as two nodes
    /// behind a load balancer, both serving on real ports while `body` runs; the database goes after.
    static func twoNodes(
        _ configure: @escaping (inout ParleyConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TestParley, any TestClientProtocol, TestParley, any TestClientProtocol) async throws -> Void
    ) async throws {
        let url = try await TestPostgreSQL.freshDatabase()
        let secret = String(repeating: "5eed", count: 16)   // the token key every node shares
        func settings(_ config: inout ParleyConfiguration) {
            config.databaseURL = url
            config.jwtSecret = secret
            config.adminToken = String(repeating: "ad", count: 16)
            configure(&config)
        }
        let one = try await TestParley.start(settings)
        let two = try await TestParley.start(settings)
        try await one.test(.live) { node1 in
            try await two.test(.live) { node2 in try await body(one, node1, two, node2) }
        }
        await TestPostgreSQL.drop(url)
    }

    @Test func annOnOneNodeAndBoOnTheOtherBefriendChatAndBlock() async throws {
        try await Self.twoNodes { one, node1, two, node2 in
            let ann = try await node1.signUp("Ann", "ann@example.com", outbox: one.outbox)
            let bo = try await node2.signUp("Bo", "bo@example.com", outbox: two.outbox)
            // A token from one node is good on the other.
            #expect(try await node2.call(.get, "/v1/me", token: ann.accessToken).user["id"] as? String == ann.id)

            // Ann asks on node 1; Bo sees it and accepts on node 2; Ann sees a friend on node 1.
            let asked = try await node1.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            #expect(asked.status.code < 300, "\(asked.text)")
            let incoming = try await node2.call(.get, "/v1/friends/requests", token: bo.accessToken)["requests"] as? [JSON] ?? []
            let request = try #require(incoming.first?["id"] as? String, "Bo's incoming requests on node 2: \(incoming)")
            #expect(try await node2.call(.post, "/v1/friends/requests/\(request)/accept", token: bo.accessToken).status == .ok)
            let friends = try await node1.call(.get, "/v1/friends", token: ann.accessToken)["friends"] as? [JSON] ?? []
            #expect(friends.count == 1, "\(friends)")

            // Chat both ways: one dialog, one numbering of its messages.
            let dialog = try await node1.privateDialog(ann, with: bo)
            #expect(try await node2.privateDialog(bo, with: ann) == dialog)
            #expect(try await node1.sendText(ann, dialog, "hi from node 1").status == .created)
            #expect(try await node2.sendText(bo, dialog, "hi from node 2").status == .created)
            let onTwo = try await node2.history(bo, dialog).compactMap { $0["text"] as? String }
            let onOne = try await node1.history(ann, dialog).compactMap { $0["text"] as? String }
            #expect(Set(onTwo) == ["hi from node 1", "hi from node 2"])
            #expect(onOne == onTwo)

            // Bo's events, numbered once in the shared log: `sync` on either node replays the same sequence.
            var replays: [[String]] = []
            for port in [node1.port!, node2.port!] {
                let (socket, _) = try await RealtimeClient.connect(port: port, token: bo.accessToken)
                let reply = try await socket.command("sync", ["since": 0])
                #expect(reply.ok == true, "\(reply)")
                let frames = await socket.inbox { $0.seq != nil }
                replays.append(frames.map { "\($0.seq!) \($0.type ?? "")" })
                socket.close()
            }
            #expect(replays[0] == replays[1])
            #expect(replays[0].contains { $0.hasSuffix("message.new") }, "\(replays[0])")

            // Ann blocks Bo on node 1: node 2 refuses Bo's next message.
            #expect(try await node1.call(.put, "/v1/blocks/\(bo.id)", token: ann.accessToken).status.code < 300)
            let refused = try await node2.sendText(bo, dialog, "still there?")
            #expect(refused.errorCode == "blocked", "\(refused.text)")
        }
    }
}

extension TwoNodesTests {
    /// Live delivery across nodes: Ann's socket is on node 1 and Bo's on node 2; they write in
    /// turn, each through the other's node or their own, and both sockets get all six messages,
    /// once each, in the order their numbers say.
    @Test func eventsCommittedOnOneNodeReachSocketsOnTheOtherInOrder() async throws {
        try await Self.twoNodes { one, node1, two, node2 in
            let ann = try await node1.signUp("Ann", "ann@example.com", outbox: one.outbox)
            let bo = try await node2.signUp("Bo", "bo@example.com", outbox: two.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: node1.port!, token: ann.accessToken)
            defer { annSocket.close() }
            let (boSocket, _) = try await RealtimeClient.connect(port: node2.port!, token: bo.accessToken)
            defer { boSocket.close() }

            // A friend request asked on node 1 rings on node 2 at once.
            _ = try await node1.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            _ = try await boSocket.next { $0.type == "friend.request" }
            _ = try await node2.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken)
            let dialog = try await node1.privateDialog(ann, with: bo)

            let sent = (1...6).map { "m\($0)" }
            for (n, text) in sent.enumerated() {
                let (node, user) = n % 2 == 0 ? (node2, bo) : (node1, ann)
                #expect(try await node.sendText(user, dialog, text).status == .created)
            }
            for socket in [annSocket, boSocket] {
                let got = try await socket.events("message.new", count: 6)
                #expect(got.compactMap { $0.message?["text"] as? String } == sent)
                let seqs = got.compactMap(\.seq)
                #expect(seqs == seqs.sorted() && Set(seqs).count == 6, "\(seqs)")
                #expect(await socket.receives { $0.type == "message.new" } == false, "no message twice")
            }
        }
    }
}

extension TwoNodesTests {
    /// What is not stored crosses nodes too: Bo's phone is on node 2 and his pad on node 1. Ann
    /// (node 1) sees him come online and types to his phone; the phone's logout, asked on node 1,
    /// closes its socket on node 2; he stays online while the pad is there, and goes offline —
    /// once — when it closes.
    @Test func typingLogoutAndPresenceCrossNodes() async throws {
        try await Self.twoNodes { one, node1, two, node2 in
            let (ann, bo, dialog) = try await node1.annAndBoInTheirDialog(outbox: one.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: node1.port!, token: ann.accessToken)
            defer { annSocket.close() }
            func boOnline() async throws -> Bool? {
                PresenceTests.person(bo.id, in: try await node1.call(.get, "/v1/friends", token: ann.accessToken))?["online"] as? Bool
            }
            func until(_ want: Bool) async throws -> Bool {
                for _ in 0..<40 {
                    if try await boOnline() == want { return true }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return false
            }

            let phoneSession = try await node2.logIn("bo@example.com")
            let (phone, _) = try await RealtimeClient.connect(port: node2.port!, token: phoneSession.accessToken)
            let cameOnline = try await annSocket.next { $0.type == "user.updated" }
            #expect((cameOnline["user"] as? [String: Any])?["online"] as? Bool == true)
            #expect(try await until(true), "node 1 learns that Bo is connected on node 2")

            // Typing is not stored: it crosses as a signal.
            #expect(try await annSocket.command("typing", ["dialogId": dialog]).ok == true)
            let typing = try await phone.next { $0.type == "typing" }
            #expect(typing["userId"] as? String == ann.id)

            // The pad on node 1; the phone logs out through node 1 and its socket on node 2 closes.
            let (pad, _) = try await RealtimeClient.connect(port: node1.port!, token: bo.accessToken)
            let loggedOut = try await node1.call(.post, "/v1/auth/logout", json: ["refreshToken": phoneSession.refreshToken])
            #expect(loggedOut.status == .noContent, "\(loggedOut.text)")
            let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { _ = try await phone.closeFrame(); return true }
                group.addTask { try await Task.sleep(for: .seconds(5)); return false }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
            #expect(closed, "the phone's socket on node 2 closes")
            phone.close()
            #expect(await annSocket.receives(within: .milliseconds(2_000)) { $0.type == "user.updated" } == false,
                    "the pad keeps Bo online")
            #expect(try await boOnline() == true)

            pad.close()
            let wentAway = try await annSocket.next { $0.type == "user.updated" }
            #expect((wentAway["user"] as? [String: Any])?["online"] as? Bool == false, "\(wentAway)")
            #expect(try await until(false))
        }
    }
}

extension TwoNodesTests {
    /// Login limits count across nodes: wrong passwords for Ann from one address, spread over both
    /// nodes, lock her sign-in from that address on both once the limit is reached.
    @Test func failedLoginsCountTogetherOnBothNodes() async throws {
        try await Self.twoNodes({ $0.loginFailuresPerAccountAndAddress = 4 }) { one, node1, two, node2 in
            _ = try await node1.signUp("Ann", "ann@example.com", outbox: one.outbox)
            for attempt in 0..<4 {
                let node = attempt % 2 == 0 ? node1 : node2
                let wrong = try await node.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "wrong \(attempt)"])
                #expect(wrong.status == .unauthorized, "attempt \(attempt): \(wrong.text)")
            }
            for node in [node1, node2] {
                let locked = try await node.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
                #expect(locked.status == .tooManyRequests && locked.errorCode == "rate_limited", "\(locked.text)")
            }
        }
    }
}

extension TwoNodesTests {
    /// A secret one node would make up for itself is useless to the others: on PostgreSQL the
    /// token key and the admin token must be configured, and a node without them says which.
    @Test func aNodeOnPostgreSQLRefusesToMakeUpItsOwnSecrets() async throws {
        let url = try await TestPostgreSQL.freshDatabase()
        for (missing, setting) in [("jwt", "auth.jwtSecret"), ("admin", "admin.token")] {
            do {
                _ = try await TestParley.start {
                    $0.databaseURL = url
                    $0.jwtSecret = missing == "jwt" ? "" : String(repeating: "5eed", count: 16)
                    $0.adminToken = missing == "admin" ? "" : String(repeating: "ad", count: 16)
                }
                Issue.record("a node without \(setting) started")
            } catch let error as ParleyError {
                #expect(error.code == "invalid_config" && error.message.contains(setting), "\(error.message)")
            }
        }
        await TestPostgreSQL.drop(url)
    }
}

extension TwoNodesTests {
    /// Ann writes on node one, Bo's device listens on node two, and one message has crossed.
    struct Crossing: Sendable {
        let ann: TestUser, dialog: String, node1: any TestClientProtocol, boSocket: RealtimeClient
        /// The shared database's name.
        let database: String

        func send(_ text: String) async throws -> Bool { try await node1.sendText(ann, dialog, text).status == .created }

        /// Runs `statements` as the PostgreSQL server's administrator.
        func administer(_ statements: [String]) async throws {
            try await PostgreSQLURL(TestPostgreSQL.serverURL()).administer(statements, logger: Logger(label: "test-postgresql"))
        }

        /// The texts of the next `count` messages Bo's device gets.
        func received(_ count: Int) async throws -> [String] {
            try await boSocket.events("message.new", count: count, timeout: .seconds(10)).compactMap { $0.message?["text"] as? String }
        }
    }

    static func crossing(_ body: @escaping @Sendable (Crossing) async throws -> Void) async throws {
        try await twoNodes { one, node1, _, node2 in
            let (ann, bo, dialog) = try await node1.annAndBoInTheirDialog(outbox: one.outbox)
            let (boSocket, _) = try await RealtimeClient.connect(port: node2.port!, token: bo.accessToken)
            defer { boSocket.close() }
            #expect(try await node1.sendText(ann, dialog, "before").status == .created)
            _ = try await boSocket.next { $0.type == "message.new" }
            try await body(Crossing(ann: ann, dialog: dialog, node1: node1, boSocket: boSocket,
                                    database: try PostgreSQLURL(one.config.databaseURL).database))
        }
    }

    /// The listening connections drop (the server restarted them, a proxy cut them): each node
    /// listens again, and what was committed meanwhile still reaches the sockets on the other node.
    @Test func eventsStillCrossAfterTheListeningConnectionsDrop() async throws {
        try await Self.crossing { crossing in
            try await crossing.administer([
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(crossing.database)' AND query LIKE 'LISTEN%'",
            ])
            #expect(try await crossing.send("while listening again"))
            try await Task.sleep(for: .seconds(1))
            #expect(try await crossing.send("after"))
            #expect(try await crossing.received(2) == ["while listening again", "after"])
        }
    }

    /// The connection that sends wake-ups drops and cannot connect again for a while: the wake-up
    /// is kept and sent once it can, and the event reaches the socket on the other node — though
    /// nothing more is committed for its user.
    @Test func aWakeUpThatCouldNotBeSentGoesOnceItCan() async throws {
        try await Self.crossing { crossing in
            // The database takes no new connection, and the connections that sent wake-ups go.
            try await crossing.administer([
                #"ALTER DATABASE "\#(crossing.database)" ALLOW_CONNECTIONS false"#,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(crossing.database)' AND query LIKE 'SELECT pg_notify%'",
            ])
            let sent: Result<Bool, any Error> = await {
                do {
                    try await Task.sleep(for: .milliseconds(300))
                    let created = try await crossing.send("while no wake-up could go")
                    try await Task.sleep(for: .milliseconds(700))
                    return .success(created)
                } catch { return .failure(error) }
            }()
            try await crossing.administer([#"ALTER DATABASE "\#(crossing.database)" ALLOW_CONNECTIONS true"#])
            #expect(try sent.get(), "the message was stored while no connection could be made")
            #expect(try await crossing.received(1) == ["while no wake-up could go"])
        }
    }
}

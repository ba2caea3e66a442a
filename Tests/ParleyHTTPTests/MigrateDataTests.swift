import Foundation
import HummingbirdTesting
import Logging
import ParleyApp
import ParleyStorage
import ParleyTestSupport
import Testing

/// Moving an installation from one node on SQLite to PostgreSQL (`parley migrate-data`), as an
/// operator does it: people use a node on SQLite, the node stops, its database is copied into a
/// new PostgreSQL database and its files folders are moved, and a node started on PostgreSQL goes
/// on where the old one stopped — the same sign-ins, friends, messages in order, attachments,
/// stories, quotes, and each person's event numbering. A second copy into the filled database is
/// refused. Needs the test PostgreSQL (PARLEY_TEST_POSTGRES_URL), like the storage suites.
@Suite struct MigrateDataTests {
    /// What the first node left behind, to compare with what the second one shows.
    struct Before: Sendable {
        let ann: TestUser
        let bo: TestUser
        let dialog: String
        let history: [String]
        let attachment: String
        let boEvents: [String]
    }

    /// A node on SQLite where Ann and Bo became friends, wrote, sent a picture, posted a story
    /// and a quote; stopped, its folder kept.
    static func usedNode() async throws -> (TestParley, Before) {
        let old = try await TestParley.start { $0.databaseURL = "" }
        let before = try await old.test(.live, keepingFolder: true) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: old.outbox)
            for (who, text) in [(ann, "one"), (bo, "two"), (ann, "three")] {
                #expect(try await client.sendText(who, dialog, text).status == .created)
            }
            let uploaded = try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: ann.accessToken)
            let attachment = try #require(uploaded["id"] as? String, "\(uploaded.text)")
            #expect(try await client.call(.post, "/v1/dialogs/\(dialog)/messages",
                                          json: ["clientMessageId": "pic", "kind": "image", "attachmentId": attachment],
                                          token: ann.accessToken).status == .created)
            let story = try await client.call(.post, "/v1/attachments", raw: TestImages.png, token: ann.accessToken)
            #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": story["id"] as? String ?? "", "title": "Sunset"],
                                          token: ann.accessToken).status == .created)
            #expect(try await client.call(.post, "/v1/quotes", json: [
                "text": "Penguins are just tuxedoed pigeons",
                "saidBy": ["phoneNumber": "+14155550102", "name": "Bobby"],
                "heardBy": [["phoneNumber": "+14155550103", "name": "Cy"] as JSON],
            ], token: ann.accessToken).status == .created)
            let history = try await client.history(ann, dialog).map(Self.line)
            let boEvents = try await Self.replay(port: client.port!, token: bo.accessToken)
            return Before(ann: ann, bo: bo, dialog: dialog, history: history, attachment: attachment, boEvents: boEvents)
        }
        return (old, before)
    }

    /// A message as the history shows it: id, sender, text (or kind).
    static func line(_ message: JSON) -> String {
        [message["id"], message["senderId"], message["text"] ?? message["kind"]].map { $0 as? String ?? "-" }.joined(separator: " ")
    }

    /// `sync` from 0 on a new socket: "seq type" of every event replayed.
    static func replay(port: Int, token: String) async throws -> [String] {
        let (socket, _) = try await RealtimeClient.connect(port: port, token: token)
        defer { socket.close() }
        let reply = try await socket.command("sync", ["since": 0])
        #expect(reply.ok == true, "\(reply)")
        return await socket.inbox(where: { $0.seq != nil }).map { "\($0.seq!) \($0.type ?? "")" }
    }

    /// The data folder's files, as the operator moves them: attachments, avatars, the token key, the admin token.
    static func moveFiles(from old: String, to new: String) throws {
        try FileManager.default.createDirectory(atPath: new, withIntermediateDirectories: true)
        for name in ["files", "avatars", "jwt-secret", "admin-token"] where FileManager.default.fileExists(atPath: old + "/" + name) {
            try FileManager.default.copyItem(atPath: old + "/" + name, toPath: new + "/" + name)
        }
    }

    @Test func aNodeOnTheCopyGoesOnWhereTheSQLiteNodeStopped() async throws {
        let (old, before) = try await Self.usedNode()
        defer { try? FileManager.default.removeItem(atPath: old.directory) }
        let url = try await TestPostgreSQL.freshDatabase()
        var logger = Logger(label: "migrate-data")
        logger.logLevel = .warning

        var heard: [String: Int] = [:]
        let report = try await ParleyServer.migrateData(fromSQLite: old.directory + "/parley.sqlite", toPostgreSQL: url, logger: logger) {
            heard[$0] = $1
        }
        #expect(heard["users"] == 2)
        #expect(heard["friendships"] == 1)
        #expect(heard["messages"] == 4)
        #expect(heard["stories"] == 1)
        #expect(heard["quotes"] == 1)
        #expect((heard["user_events"] ?? 0) >= before.boEvents.count)
        #expect(report.tables.count == heard.count)
        #expect(report.tables.allSatisfy { $0.sqliteRows == $0.postgreSQLRows })
        // Parents before children: users before everything that refers to them.
        let order = report.tables.map(\.name)
        #expect(order.firstIndex(of: "users")! < order.firstIndex(of: "sessions")!)
        #expect(order.firstIndex(of: "sessions")! < order.firstIndex(of: "refresh_tokens")!)
        #expect(order.firstIndex(of: "dialogs")! < order.firstIndex(of: "messages")!)
        #expect(Set(report.skipped.map(\.name)).isSuperset(of: ["user_trigrams", "quotes_search", "parley_migrations"]))
        #expect(report.sequences == ["quotes.seq"])

        // Into a database that now holds data: refused, and nothing more is written.
        await #expect(throws: CopyError.self) {
            try await ParleyServer.migrateData(fromSQLite: old.directory + "/parley.sqlite", toPostgreSQL: url, logger: logger)
        }

        let folder = TestParley.newDirectory()
        try Self.moveFiles(from: old.directory, to: folder)
        let new = try await TestParley.start(in: folder) { $0.databaseURL = url }
        try await new.test(.live) { client in
            let (ann, bo) = (before.ann, before.bo)
            // A token issued by the old node still works (sessions and the key moved); the old password signs in.
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).user["id"] as? String == ann.id)
            let signedIn = try await client.logIn(ann.email, password: "correct horse")
            #expect(try await client.call(.post, "/v1/auth/login", json: ["email": ann.email, "password": "wrong horse", "deviceName": "x"]).status == .unauthorized)

            let friends = try await client.call(.get, "/v1/friends", token: signedIn.accessToken)["friends"] as? [JSON] ?? []
            #expect(friends.compactMap { $0["id"] as? String } == [bo.id], "\(friends)")
            let history = try await client.history(signedIn, before.dialog).map(Self.line)
            #expect(history == before.history)
            #expect(history.count == 4)

            let picture = try await client.call(.get, "/v1/attachments/\(before.attachment)", token: bo.accessToken)
            #expect(picture.status == .ok)
            #expect(picture.bytes == TestImages.png)
            let feed = try await client.call(.get, "/v1/stories/feed", token: bo.accessToken)
            #expect(feed.text.contains("Sunset"), "\(feed.text)")

            // The quotes' numbering goes on past the copied quote.
            #expect(try await client.call(.post, "/v1/quotes", json: [
                "text": "Moved to PostgreSQL and nobody noticed",
                "saidBy": ["phoneNumber": "+14155550104", "name": "Dee"],
                "heardBy": [["phoneNumber": "+14155550103", "name": "Cy"] as JSON],
            ], token: ann.accessToken).status == .created)
            let quotes = try await client.call(.get, "/v1/quotes", token: ann.accessToken)["quotes"] as? [JSON] ?? []
            #expect(quotes.compactMap { $0["text"] as? String } == ["Moved to PostgreSQL and nobody noticed", "Penguins are just tuxedoed pigeons"])

            // Bo's event log replays as it did, and a new event takes the next number.
            let replayed = try await Self.replay(port: client.port!, token: bo.accessToken)
            #expect(Array(replayed.prefix(before.boEvents.count)) == before.boEvents)
            let last = try #require(replayed.last.flatMap { Int($0.split(separator: " ")[0]) })
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { socket.close() }
            #expect(try await client.sendText(ann, before.dialog, "hello from PostgreSQL").status == .created)
            let arrived = try await socket.next { $0.type == "message.new" }
            #expect(arrived.seq == last + 1)
            let newest = try await client.history(bo, before.dialog).first
            #expect(newest?["text"] as? String == "hello from PostgreSQL")
        }
    }

    /// The real executable: `parley migrate-data` prints each table and the check, exits 0; run
    /// again into the same database it says why not and exits non-zero.
    @Test func theCommandCopiesPrintsEachTableAndRefusesASecondTime() async throws {
        let (old, _) = try await Self.usedNode()
        defer { try? FileManager.default.removeItem(atPath: old.directory) }
        let url = try await TestPostgreSQL.freshDatabase()
        let arguments = ["migrate-data", "--config", "/nonexistent.yaml", "--data", old.directory, "--to", url]

        let first = try await Self.parley(arguments)
        #expect(first.status == 0, "\(first.output)\n\(first.errors)")
        #expect(first.output.contains(try Regex(#"\n  users +2 rows\n"#)), "\(first.output)")
        #expect(first.output.contains(try Regex(#"\n  messages +4 rows\n"#)), "\(first.output)")
        #expect(first.output.contains(try Regex(#"skipped [^\n]*user_trigrams"#)), "\(first.output)")
        #expect(first.output.contains("Checked:"), "\(first.output)")
        #expect(first.output.contains("/files"), "the output says the files move apart: \(first.output)")

        let second = try await Self.parley(arguments)
        #expect(second.status != 0)
        #expect(second.errors.contains("already holds data"), "\(second.errors)")

        // No target named anywhere: a usage error, before anything opens.
        let nowhere = try await Self.parley(["migrate-data", "--config", "/nonexistent.yaml", "--data", old.directory])
        #expect(nowhere.status != 0)
        #expect(nowhere.errors.contains("--to"), "\(nowhere.errors)")
        // No server there: said in words, not PostgresNIO's description of nothing.
        let unreachable = try await Self.parley(["migrate-data", "--config", "/nonexistent.yaml", "--data", old.directory,
                                                 "--to", "postgres://parley:secret@127.0.0.1:1/parley"])
        #expect(unreachable.status != 0)
        #expect(unreachable.errors.contains("cannot connect to postgres://parley@127.0.0.1:1/parley"), "\(unreachable.errors)")
        #expect(!unreachable.errors.contains("secret") && !unreachable.output.contains("secret"), "the password is never printed")
        await TestPostgreSQL.drop(url)
    }

    /// Runs .build/debug/parley with `arguments`; its exit status, stdout and stderr.
    static func parley(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/debug/parley").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing: run `swift build --build-tests` (make test does)")
        let folder = TestParley.newDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = FileManager.default.createFile(atPath: folder + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: folder + "/err", contents: nil)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DATABASE_URL")
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/err"))
        try process.run()
        for _ in 0..<1200 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus,
                (try? String(contentsOfFile: folder + "/out", encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: folder + "/err", encoding: .utf8)) ?? "")
    }
}

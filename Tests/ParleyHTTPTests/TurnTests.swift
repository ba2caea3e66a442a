import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyApp
import ParleyCalls
import ParleyCore
import ParleyTestSupport
import Testing

/// GET /v1/calls/ice-servers and the `hello`'s iceServers: TURN servers with credentials in
/// coturn's shared-secret scheme, or none when `turn.uris` is empty.
@Suite struct TurnCredentialsTests {
    static let uris = ["turn:turn.parley.test:3478?transport=udp", "turns:turn.parley.test:443?transport=tcp"]

    @Test func withoutTURNTheListIsEmptyAndATokenIsStillNeeded() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let unauthenticated = try await client.call(.get, "/v1/calls/ice-servers")
            #expect(unauthenticated.status == .unauthorized)
            #expect(unauthenticated.errorCode == "unauthenticated")
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let reply = try await client.call(.get, "/v1/calls/ice-servers", token: ann.accessToken)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply["iceServers"] as? [Any] != nil && (reply["iceServers"] as? [Any])?.isEmpty == true, "\(reply.text)")
            #expect(reply["ttlSeconds"] as? Int == 0)
            let (socket, hello) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { socket.close() }
            #expect((hello["iceServers"] as? [Any])?.isEmpty == true, "\(hello)")
            #expect(hello["userId"] as? String == ann.id)
        }
    }

    @Test func eachUserGetsACredentialOfTheirOwnOverHTTPAndInHello() async throws {
        let parley = try await TestParley.start {
            $0.turn.uris = Self.uris
            $0.turn.sharedSecret = "north-wind-0123"
            $0.turn.ttlSeconds = 600
        }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let expiry = Int(parley.clock.now().timeIntervalSince1970) + 600
            let reply = try await client.call(.get, "/v1/calls/ice-servers", token: ann.accessToken)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.headers[.cacheControl] == "no-store")
            #expect(reply["ttlSeconds"] as? Int == 600)
            let servers = try #require(reply["iceServers"] as? [[String: Any]])
            #expect(servers.count == 1)
            let server = try #require(servers.first)
            #expect(server["urls"] as? [String] == Self.uris)
            #expect(server["username"] as? String == "\(expiry):\(ann.id)")
            // The scheme itself is checked against Python's hmac in TURNCredentialTests, and by coturn below.
            #expect(server["credential"] as? String == TURNCredential(username: "\(expiry):\(ann.id)", secret: "north-wind-0123").password)

            let boServers = try await client.call(.get, "/v1/calls/ice-servers", token: bo.accessToken)["iceServers"] as? [[String: Any]]
            #expect(boServers?.first?["username"] as? String == "\(expiry):\(bo.id)")
            #expect(boServers?.first?["credential"] as? String != server["credential"] as? String)

            let (socket, hello) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { socket.close() }
            let inHello = try #require(hello["iceServers"] as? [[String: Any]], "\(hello)")
            #expect(inHello.first?["urls"] as? [String] == Self.uris)
            #expect(inHello.first?["username"] as? String == "\(expiry):\(ann.id)")
            #expect(inHello.first?["credential"] as? String == server["credential"] as? String)
            #expect(hello["iceServersTtlSeconds"] as? Int == 600)
        }
    }

    @Test func theSettingsComeFromTheFileOrTheEnvironment() async throws {
        let repoConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/parley.yaml").path
        let shipped = try await ParleyConfiguration.load(file: repoConfig, environment: [:])
        #expect(shipped.turn.uris.isEmpty, "make run needs no TURN")
        #expect(shipped.turn.ttlSeconds == 86_400)

        let fromEnvironment = try await ParleyConfiguration.load(file: repoConfig, environment: [
            "TURN_URIS": "turn:t.example:3478?transport=udp, turns:t.example:443?transport=tcp",
            "TURN_SHARED_SECRET": "s3cret", "TURN_TTL_SECONDS": "3600",
        ])
        #expect(fromEnvironment.turn.uris == ["turn:t.example:3478?transport=udp", "turns:t.example:443?transport=tcp"])
        #expect(fromEnvironment.turn.sharedSecret == "s3cret")
        #expect(fromEnvironment.turn.ttlSeconds == 3600)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-turn-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
            turn:
              uris:
                - "turn:t.example:3478?transport=udp"
                - "turns:t.example:443?transport=tcp"
              sharedSecret: from-the-file
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try await ParleyConfiguration.load(file: file, environment: [:])
        #expect(fromFile.turn.uris == ["turn:t.example:3478?transport=udp", "turns:t.example:443?transport=tcp"])
        #expect(fromFile.turn.sharedSecret == "from-the-file")
    }

    @Test func urisWithoutASecretStopTheServerFromStarting() async throws {
        await #expect(throws: ParleyError.self) {
            _ = try await TestParley.start { $0.turn.uris = Self.uris }
        }
    }
}

/// The credentials against a real coturn (Debian's, started here with `use-auth-secret`), and
/// headless Chromium placing the echo call through it with relayed candidates only.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)),
       .enabled(if: Coturn.isInstalled, "needs Debian's coturn (/usr/bin/turnserver): scripts/test.sh installs it (apt-get install coturn)"))
struct TurnInteropTests {
    static let secret = "parley-test-\(UUID().uuidString)"

    /// Parley handing out `coturn`'s URIs, on the real clock (coturn checks expiry against it).
    static func parley(with coturn: Coturn) async throws -> TestParley {
        let parley = try await TestParley.start {
            $0.turn.uris = [coturn.udpURI, coturn.tcpURI, coturn.tlsURI]
            $0.turn.sharedSecret = coturn.secret
            $0.turn.ttlSeconds = 600
        }
        parley.clock.set(Date())
        return parley
    }

    @Test func coturnTakesParleysCredentialsAndRefusesExpiredOrForeignOnes() async throws {
        let coturn = try await Coturn.start(secret: Self.secret)
        defer { coturn.stop() }
        let parley = try await Self.parley(with: coturn)
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let reply = try await client.call(.get, "/v1/calls/ice-servers", token: ann.accessToken)
            let server = try #require((reply["iceServers"] as? [[String: Any]])?.first, "\(reply.text)")
            let username = try #require(server["username"] as? String), credential = try #require(server["credential"] as? String)
            let probe = TURNProbe(port: coturn.port)

            #expect(try probe.allocate(username: username, password: credential) == .granted, "\(coturn.log.suffix(2000))")

            let user = UserID(rawValue: ann.id)
            let expired = TURNCredential(user: user, expiry: Date().addingTimeInterval(-60), secret: Self.secret)
            let refusedExpired = try probe.allocate(username: expired.username, password: expired.password)
            #expect(refusedExpired.code == 401, "\(refusedExpired)")
            let foreign = TURNCredential(user: user, expiry: Date().addingTimeInterval(600), secret: "another-secret")
            let refusedForeign = try probe.allocate(username: foreign.username, password: foreign.password)
            #expect(refusedForeign.code == 401, "\(refusedForeign)")
            // Someone else's name on Ann's credential: the HMAC covers the user id as well.
            let borrowed = username.replacingOccurrences(of: ann.id, with: "someone-else")
            let refusedBorrowed = try probe.allocate(username: borrowed, password: credential)
            #expect(refusedBorrowed.code == 401, "\(refusedBorrowed)")
            print("coturn: Parley's credential \(try probe.allocate(username: username, password: credential)); expired \(refusedExpired); other secret \(refusedForeign); another user's name \(refusedBorrowed)")
        }
    }

    /// docs/deploying.md's turnserver.conf as written (moved to loopback and free ports): Parley's
    /// credentials work, and the only peer it relays to is the media address it allows.
    @Test func theRecommendedConfigurationRelaysToParleysMediaAddressOnly() async throws {
        let coturn = try await Coturn.start(secret: Self.secret, configuration: Coturn.recommendedConfiguration)
        defer { coturn.stop() }
        let settings = coturn.configuration.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!settings.contains { $0.hasPrefix("allow-loopback-peers") }, "\(coturn.configuration)")
        #expect(settings.contains("use-auth-secret") && settings.contains("denied-peer-ip=10.0.0.0-10.255.255.255"), "\(coturn.configuration)")
        let credential = TURNCredential(user: UserID(rawValue: "ann"), expiry: Date().addingTimeInterval(600), secret: Self.secret)
        let session = try TURNProbe.Session(port: coturn.port, username: credential.username, password: credential.password)
        #expect(try session.allocate() == .granted, "\(coturn.log.suffix(2000))")
        let mediaAddress = "203.0.113.10"   // the allowed-peer-ip the document shows for Parley's relay
        #expect(try session.permit(mediaAddress) == .granted, "\(coturn.log.suffix(2000))")
        var refusals: [String] = []
        for peer in ["127.0.0.1", "10.1.2.3", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.1", "8.8.8.8", "203.0.113.11"] {
            let outcome = try session.permit(peer)
            #expect(outcome.code == 403, "\(peer): \(outcome)")
            refusals.append("\(peer) \(outcome)")
        }
        print("recommended coturn: \(mediaAddress) granted; refused \(refusals.joined(separator: ", "))")
    }

    /// Over each transport a device may use: TURN over UDP, over TCP, and over TLS (what gets
    /// through a network that lets only TCP 443 out; here with a self-signed certificate that
    /// Chromium is told to trust by its public key).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                   "needs Debian's chromium: scripts/test.sh installs it (apt-get install chromium)"),
          arguments: ["udp", "tcp", "tls"])
    func chromiumOnRelayOnlyCandidatesGetsItsEchoCallThroughCoturn(transport: String) async throws {
        let python = try AiortcPeer.python()
        let coturn = try await Coturn.start(secret: Self.secret)
        defer { coturn.stop() }
        let parley = try await Self.parley(with: coturn)
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let reply = try await client.call(.get, "/v1/calls/ice-servers", token: ann.accessToken)
            #expect(reply.status == .ok, "\(reply.text)")
            // The servers as the endpoint gave them, narrowed to one transport so that each is shown to work.
            let servers = try #require(reply["iceServers"] as? [[String: Any]]).map { server in
                server.merging(["urls": (server["urls"] as? [String] ?? []).filter {
                    transport == "tls" ? $0.hasPrefix("turns:") : $0.hasPrefix("turn:") && $0.hasSuffix("transport=\(transport)")
                }]) { $1 }
            }
            let json = String(decoding: try JSONSerialization.data(withJSONObject: servers), as: UTF8.self)
            let started = ContinuousClock.now
            let peer = try AiortcPeer(python: python, script: AiortcPeer.script(named: "chromium_turn_peer.py"),
                                      arguments: ["--ice-servers", json, "--frames", "60",
                                                  "--chromium-arg=--ignore-certificate-errors-spki-list=\(coturn.certificateSPKI)"])
            defer { peer.kill() }
            let offer = try await peer.next(timeout: .seconds(30))
            #expect(offer.type == "offer", "\(offer.error ?? "") \(peer.stderr.suffix(2000))")
            #expect((offer.relayCandidates ?? 0) > 0, "no relay candidate from coturn over \(transport): \(coturn.log.suffix(2000))")
            let sdp = try #require(offer.sdp)
            #expect(!sdp.contains(" typ host"), "relay candidates only")

            let echo = try await client.call(.post, "/v1/calls/echo", json: ["sdp": sdp], token: ann.accessToken)
            #expect(echo.status == .created, "\(echo.text)")
            try peer.send(answer: try #require(echo["sdp"] as? String))
            let result = try await peer.next(timeout: .seconds(40))
            #expect(result.type == "result", "\(result.error ?? "") \(peer.stderr.suffix(2000))")
            #expect((result.videoFrames ?? 0) >= 60, "\(result) coturn: \(coturn.log.suffix(2000))")
            #expect(result.candidateType == "relay", "\(result)")
            #expect(result.relayProtocol == transport, "\(result)")
            print("chromium echo call through coturn over \(transport): videoFrames=\(result.videoFrames ?? -1) audioPackets=\(result.audioPackets ?? -1) connect=\(result.connectSeconds ?? -1) s, total \(ContinuousClock.now - started)")
            if let id = echo["callId"] as? String {
                #expect(try await client.call(.delete, "/v1/calls/echo/\(id)", token: ann.accessToken).status == .noContent)
            }
        }
    }
}

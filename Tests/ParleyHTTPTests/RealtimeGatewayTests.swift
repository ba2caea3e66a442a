import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct RealtimeGatewayTests {
    @Test func helloPingAndRepliesCarryTheCommandID() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let (socket, hello) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken, useHeader: true)
            defer { socket.close() }
            #expect(hello["userId"] as? String == ann.id)
            #expect(hello["latestSeq"] as? Int == 0)
            #expect((hello["sessionId"] as? String)?.isEmpty == false)
            #expect(hello["pingIntervalSeconds"] as? Int == 25, "the hello says how often to ping an idle socket")
            let pong = try await socket.command("ping")
            #expect(pong.ok == true)
            #expect(pong["serverTime"] is String)
            socket.sendRaw(#"{"id":7,"type":"ping"}"#)
            let numbered = try await socket.next { $0["replyTo"] as? Int == 7 }
            #expect(numbered.ok == true)
        }
    }

    @Test func loggingOutClosesThatDevicesSocketAtOnce() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let phone = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let tablet = try await client.logIn("ann@example.com")
            let (phoneSocket, _) = try await RealtimeClient.connect(port: client.port!, token: phone.accessToken)
            let (tabletSocket, _) = try await RealtimeClient.connect(port: client.port!, token: tablet.accessToken)
            defer { phoneSocket.close(); tabletSocket.close() }
            #expect(try await client.call(.post, "/v1/auth/logout", token: phone.accessToken).status == .noContent)
            // The phone's socket closes without it sending anything, so no event reaches it any more.
            try await Self.waitUntilClosed(phoneSocket)
            #expect(await phoneSocket.isClosed)
            // The tablet's session goes on.
            #expect(try await tabletSocket.command("sync", ["since": 0]).ok == true)
            #expect(await !tabletSocket.isClosed)
        }
    }

    /// A session ended where no word of it reaches the socket (here straight in the store, as
    /// another node whose message was lost would leave it): commands go on until the socket asks
    /// the store again (`realtime.sessionRecheckSeconds`), then the answer is `session_ended`
    /// and the socket closes.
    @Test func aSessionEndedWithoutWordIsFoundAtTheNextRecheck() async throws {
        let parley = try await TestParley.start { $0.sessionRecheckSeconds = 0.5 }
        try await parley.test(.live) { client in
            let phone = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: phone.accessToken)
            defer { socket.close() }
            #expect(try await socket.command("sync", ["since": 0]).ok == true)
            try await parley.parts.database.write { sql in
                try sql.execute("UPDATE sessions SET ended_at = ?, end_reason = 'test' WHERE ended_at IS NULL", 1)
            }
            try await Task.sleep(for: .milliseconds(600))
            let refused = try await socket.command("sync", ["since": 0])
            #expect(refused.ok == false)
            #expect(refused.errorCode == "session_ended")
            try await Self.waitUntilClosed(socket)
        }
    }

    @Test func aPasswordResetClosesEveryDevicesSocket() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let phone = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let tablet = try await client.logIn("ann@example.com")
            let (phoneSocket, _) = try await RealtimeClient.connect(port: client.port!, token: phone.accessToken)
            let (tabletSocket, _) = try await RealtimeClient.connect(port: client.port!, token: tablet.accessToken)
            defer { phoneSocket.close(); tabletSocket.close() }
            #expect(try await client.call(.post, "/v1/auth/password-reset", json: ["email": "ann@example.com"]).status == .accepted)
            let code = try token(inMail: try await parley.outbox.mail(to: "ann@example.com", number: 2))
            let confirm = try await client.call(.post, "/v1/auth/password-reset/confirm", json: ["token": code, "newPassword": "a brand new horse"])
            #expect(confirm.status.code < 300, "\(confirm.text)")
            try await Self.waitUntilClosed(phoneSocket)
            try await Self.waitUntilClosed(tabletSocket)
        }
    }

    static func waitUntilClosed(_ socket: RealtimeClient, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !(await socket.isClosed), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await socket.isClosed, sourceLocation: sourceLocation)
    }

    @Test func withoutAValidTokenThereIsNoSocket() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            await #expect(throws: (any Error).self) {
                let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: "garbage")
                socket.close()
            }
            #expect(try await client.call(.get, "/v1/realtime").status == .unauthorized)
            let plain = try await client.call(.get, "/v1/realtime", token: ann.accessToken)
            #expect(plain.errorCode == "upgrade_required")
        }
    }

    /// One user holds `realtime.maxConnectionsPerUser` sockets at most, all devices together;
    /// another user is not affected, and a closed socket frees its place.
    @Test func socketsPerUserAreBounded() async throws {
        let parley = try await TestParley.start { $0.maxConnectionsPerUser = 2 }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let (first, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (second, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { second.close() }
            await #expect(throws: (any Error).self) {
                let (third, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
                third.close()
            }
            let refused = try await client.call(.get, "/v1/realtime", token: ann.accessToken)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == "too_many_connections")
            let (bos, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            bos.close()
            first.close()
            try await Self.waitUntilClosed(first)
            for _ in 0..<100 where parley.parts.events.hub.connectionCount(of: .init(rawValue: ann.id)) > 1 {
                try await Task.sleep(for: .milliseconds(20))
            }
            let (again, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            again.close()
        }
    }

    @Test func friendEventsReachEveryDeviceNumberedInOrder() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let tablet = try await client.logIn("ann@example.com")
            let (phone, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (pad, _) = try await RealtimeClient.connect(port: client.port!, token: tablet.accessToken)
            defer { phone.close(); pad.close() }

            let sent = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken)
            let requestID = try #require((sent["request"] as? [String: any Sendable])?["id"] as? String)
            for device in [phone, pad] {
                let event = try await device.next { $0.type == "friend.request" }
                #expect(event.seq == 1)
                #expect(event["id"] as? String == requestID)
                #expect(event["from"] as? String == bo.id)
            }
            _ = try await client.call(.post, "/v1/friends/requests/\(requestID)/accept", token: ann.accessToken)
            let accepted = try await phone.next { $0.type == "friend.accepted" }
            #expect(accepted.seq == 2)
            #expect(accepted["userId"] as? String == bo.id)
            _ = try await client.call(.delete, "/v1/friends/\(ann.id)", token: bo.accessToken)
            let removed = try await pad.next { $0.type == "friend.removed" }
            #expect(removed.seq == 3)
        }
    }

    @Test func aDeviceThatWasAwaySyncsExactlyWhatItMissed() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let (first, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken)
            let seen = try await first.next { $0.type == "friend.request" }
            first.close()
            try await Task.sleep(for: .milliseconds(100))

            // While away: two more events.
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: cy.accessToken)
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": cy.id], token: ann.accessToken)

            let (back, hello) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { back.close() }
            #expect(hello["latestSeq"] as? Int == 3)
            let reply = try await back.command("sync", ["since": seen.seq ?? 0])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply["count"] as? Int == 2)
            #expect(reply["latestSeq"] as? Int == 3)
            #expect(reply["more"] as? Bool == false)
            let missed = await back.inbox(where: { $0.seq != nil })
            #expect(missed.map(\.seq) == [2, 3])
            #expect(missed.map(\.type) == ["friend.request", "friend.accepted"])

            let nothing = try await back.command("sync", ["since": 3])
            #expect(nothing["count"] as? Int == 0)
            let paged = try await back.command("sync", ["since": 0, "limit": 2])
            #expect(paged["count"] as? Int == 2)
            #expect(paged["more"] as? Bool == true)
        }
    }

    @Test func syncPastRetentionSaysToRefetch() async throws {
        let parley = try await TestParley.start { $0.eventRetentionDays = 1 }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken)
            parley.clock.advance(by: 2 * 86_400)
            try await parley.parts.events.prune()
            let fresh = try await client.logIn("ann@example.com")
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: fresh.accessToken)
            defer { socket.close() }
            let reply = try await socket.command("sync", ["since": 0])
            #expect(reply.ok == false)
            #expect(reply.errorCode == "history_expired")
        }
    }

    @Test func badFramesGetErrorsAndOthersAreUnaffected() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (other, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { other.close() }

            socket.sendRaw("not json")
            #expect(try await socket.next { $0.ok == false }.errorCode == "invalid_json")
            socket.sendRaw(#"{"id":"a"}"#)
            #expect(try await socket.next { $0["replyTo"] as? String == "a" }.errorCode == "missing_field")
            socket.sendRaw(#"{"id":"b","type":"launch.rockets"}"#)
            #expect(try await socket.next { $0["replyTo"] as? String == "b" }.errorCode == "unknown_command")
            socket.sendRaw(#"{"id":"c","type":"sync","since":"yesterday"}"#)
            #expect(try await socket.next { $0["replyTo"] as? String == "c" }.errorCode == "invalid_field")
            socket.sendRaw(#"[1,2,3]"#)
            #expect(try await socket.next { $0.ok == false && $0["replyTo"] == nil || $0["replyTo"] is NSNull }.errorCode == "invalid_json")
            #expect(try await socket.command("ping").ok == true, "still serving this connection")

            // A frame past the limit closes this connection with a reason, and only this one.
            socket.sendRaw(#"{"type":"ping","pad":""# + String(repeating: "x", count: 100_000) + #""}"#)
            let close = try await socket.closeFrame()
            #expect(close?.closeCode == .messageTooLarge)
            #expect(try await other.command("ping").ok == true)
        }
    }
}

extension RealtimeClient {
    /// Every frame already received that matches, in order (waits briefly for stragglers).
    func inbox(where match: @escaping @Sendable (Frame) -> Bool) async -> [Frame] {
        var found: [Frame] = []
        while let frame = try? await next(timeout: .milliseconds(300), match) { found.append(frame) }
        return found
    }
}

import Foundation
import HummingbirdTesting
import ParleyApp
import ParleyRealtime
import ParleyStorage
import ParleyTestSupport
import Testing

/// Calls across two nodes on one PostgreSQL: a call lives on the node it was placed on (its relay
/// legs, its timers); the callee's devices on the other node ring, answer, hang up and sync
/// through the node bus, and the answer they get points at the call's node's relay. Busy and
/// crossing calls are found across nodes, and a block on either node ends the call. (Real offers,
/// no media: TwoNodeProcessesTests carries media between two processes.)
@Suite(.serialized) struct TwoNodesCallTests {   // ten servers at once would crowd the timing-bound suites beside them
    static let offer = CallSignallingTests.offer
    /// An offer from a device with many addresses (Wi-Fi, cellular, VPN, IPv6 each): too large for
    /// one notification between nodes (8 000 bytes), so it crosses as a stored parcel.
    static let largeOffer = offer.trimmingCharacters(in: .whitespacesAndNewlines) + "\r\n" + (1...100).map { index in
        "a=candidate:\(index) 1 udp \(2_130_706_431 - index) 2001:db8::\(String(index, radix: 16)) \(40_000 + index) typ host\r\n"
    }.joined()

    struct Scene {
        let ann: TestUser, bo: TestUser, cy: TestUser
        /// Ann on node 1; Bo and Cy on node 2.
        let annSocket: RealtimeClient, boSocket: RealtimeClient, cySocket: RealtimeClient
        func close() { annSocket.close(); boSocket.close(); cySocket.close() }
    }

    static func scene(_ one: TestParley, _ node1: any TestClientProtocol, _ two: TestParley, _ node2: any TestClientProtocol) async throws -> Scene {
        let ann = try await node1.signUp("Ann", "ann@example.com", outbox: one.outbox)
        let bo = try await node2.signUp("Bo", "bo@example.com", outbox: two.outbox)
        let cy = try await node2.signUp("Cy", "cy@example.com", outbox: two.outbox)
        try await node1.befriend(ann, bo)
        try await node1.befriend(ann, cy)
        try await node2.befriend(bo, cy)
        let (a, _) = try await RealtimeClient.connect(port: node1.port!, token: ann.accessToken)
        let (b, _) = try await RealtimeClient.connect(port: node2.port!, token: bo.accessToken)
        let (c, _) = try await RealtimeClient.connect(port: node2.port!, token: cy.accessToken)
        return Scene(ann: ann, bo: bo, cy: cy, annSocket: a, boSocket: b, cySocket: c)
    }

    static func invite(_ socket: RealtimeClient, _ to: TestUser) async throws -> Frame {
        try await socket.command("call.invite", ["to": to.id, "media": "audio", "sdp": offer])
    }

    /// The ports of the `a=candidate` lines of an SDP.
    static func candidatePorts(_ sdp: String) -> Set<Int> {
        Set(sdp.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("a=candidate:") }.compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 ? Int(fields[5]) : nil
        })
    }

    /// Whether an answer's candidates are `node`'s relay: its UDP port (and its TCP port, which
    /// is the same number unless that was taken).
    static func pointsAt(_ node: TestParley, _ answer: String) -> Bool {
        let ports = candidatePorts(answer)
        return ports.contains(node.parts.relay.port) && ports.isSubset(of: Set([node.parts.relay.port] + [node.parts.relay.tcpPort].compactMap { $0 }))
    }

    @Test func aCallPlacedOnOneNodeRingsIsAnsweredAndEndsOnTheOther() async throws {
        try await TwoNodesTests.twoNodes { one, node1, two, node2 in
            let began = ContinuousClock.now
            let scene = try await Self.scene(one, node1, two, node2)
            defer { scene.close() }
            let placing = ContinuousClock.now
            let invite = try await Self.invite(scene.annSocket, scene.bo)
            let id = try #require(invite["callId"] as? String, "\(invite)")
            let placed = ContinuousClock.now
            let incoming = try await scene.boSocket.next(timeout: .seconds(10)) { $0.type == "call.incoming" }
            #expect(incoming["callId"] as? String == id)
            let rang = ContinuousClock.now
            let synced = try await scene.boSocket.command("sync", ["since": 0])
            // When it fails, when: a ring times out after 45 s, a node is taken for stopped after 10.
            let timing = "scene \(placing - began), invite \(placed - placing), call.incoming \(rang - placed), sync \(ContinuousClock.now - rang)"
            #expect((synced["calls"] as? [JSON])?.first?["state"] as? String == "ringing",
                    "Bo's sync on node 2 finds the call ringing on node 1: \(synced); \(timing)")

            // Bo answers on node 2: his leg is made on node 1's relay, and the answer says so.
            #expect(Self.largeOffer.utf8.count > 8_000)
            let accepted = try await scene.boSocket.command("call.accept", ["callId": id, "sdp": Self.largeOffer])
            let answer = try #require(accepted["sdp"] as? String, "\(accepted)")
            #expect(Self.pointsAt(one, answer), "\(answer)")
            #expect(await one.parts.relay.counters().legs == 2)
            #expect(await two.parts.relay.counters().legs == 0)
            _ = try await scene.annSocket.next(timeout: .seconds(10)) { $0.type == "call.accepted" }
            let live = try await scene.boSocket.command("sync", ["since": 0])["calls"] as? [JSON] ?? []
            #expect(live.count == 1 && live.first?["state"] as? String == "active" && live.first?["direction"] as? String == "incoming", "\(live)")

            // Microphone state and the hangup, from node 2.
            #expect(try await scene.boSocket.command("call.media", ["callId": id, "audio": false, "video": false]).ok == true)
            #expect(try await scene.annSocket.next(timeout: .seconds(10)) { $0.type == "call.media" }["audio"] as? Bool == false)
            #expect(try await scene.boSocket.command("call.hangup", ["callId": id]).ok == true)
            for socket in [scene.annSocket, scene.boSocket] {
                #expect(try await socket.next(timeout: .seconds(10)) { $0.type == "call.ended" }["reason"] as? String == "hangup")
            }
            #expect(await one.parts.relay.counters().legs == 0)
            let history = try await node2.call(.get, "/v1/calls", token: scene.bo.accessToken)["calls"] as? [JSON] ?? []
            #expect(history.map { $0["outcome"] as? String } == ["answered"], "\(history)")

            // Once ended, Bo may call again, from node 2 this time; Ann declines on node 1.
            let again = try #require(try await Self.invite(scene.boSocket, scene.ann)["callId"] as? String)
            _ = try await scene.annSocket.next(timeout: .seconds(10)) { $0.type == "call.incoming" && $0["callId"] as? String == again }
            #expect(try await scene.annSocket.command("call.decline", ["callId": again]).ok == true)
            #expect(try await scene.boSocket.next(timeout: .seconds(10)) { $0.type == "call.ended" && $0["callId"] as? String == again }["reason"] as? String == "declined")
        }
    }

    @Test func busyCrossingCallsAndBlocksHoldAcrossNodes() async throws {
        try await TwoNodesTests.twoNodes { one, node1, two, node2 in
            let scene = try await Self.scene(one, node1, two, node2)
            defer { scene.close() }
            // Ann (node 1) and Bo (node 2) call each other at once: one call, answered.
            let annCalls = try #require(try await Self.invite(scene.annSocket, scene.bo)["callId"] as? String)
            let boCalls = try await Self.invite(scene.boSocket, scene.ann)
            #expect(boCalls["callId"] as? String == annCalls, "glare across nodes: one call \(boCalls)")
            #expect(Self.pointsAt(one, boCalls["sdp"] as? String ?? ""), "\(boCalls)")
            for socket in [scene.annSocket, scene.boSocket] {
                #expect(try await socket.next(timeout: .seconds(10)) { $0.type == "call.accepted" }["callId"] as? String == annCalls)
            }

            // Cy on node 2 calls Bo, who is in the call held on node 1: busy.
            let busy = try await Self.invite(scene.cySocket, scene.bo)
            #expect(busy["ended"] as? String == "busy", "\(busy)")
            // Bo cannot place a second call either.
            #expect(try await Self.invite(scene.boSocket, scene.cy).errorCode == "already_in_call")

            // Bo blocks Ann on node 2: the call held on node 1 ends at once for both.
            #expect(try await node2.call(.put, "/v1/blocks/\(scene.ann.id)", token: scene.bo.accessToken).status.code < 300)
            for socket in [scene.annSocket, scene.boSocket] {
                _ = try await socket.next(timeout: .seconds(10)) { $0.type == "call.ended" && $0["callId"] as? String == annCalls }
            }
            // And Bo is free again: Cy's call now rings.
            let rings = try #require(try await Self.invite(scene.cySocket, scene.bo)["callId"] as? String)
            _ = try await scene.boSocket.next(timeout: .seconds(10)) { $0.type == "call.incoming" && $0["callId"] as? String == rings }
        }
    }

    @Test func aCallerOnTheOtherNodeHearsNoAnswerWhenTheRingTimesOut() async throws {
        try await TwoNodesTests.twoNodes({ $0.ringSeconds = 1 }) { one, node1, two, node2 in
            let scene = try await Self.scene(one, node1, two, node2)
            defer { scene.close() }
            let id = try #require(try await Self.invite(scene.boSocket, scene.ann)["callId"] as? String)
            for socket in [scene.annSocket, scene.boSocket] {
                let ended = try await socket.next(timeout: .seconds(10)) { $0.type == "call.ended" && $0["callId"] as? String == id }
                #expect(ended["reason"] as? String == "no_answer")
            }
        }
    }

    @Test func limitsOfBusyPathsCountTogetherOnBothNodes() async throws {
        try await TwoNodesTests.twoNodes({ $0.callInvitesPerMinute = 1; $0.friendRequestsPerHour = 1 }) { one, node1, two, node2 in
            let ann = try await node1.signUp("Ann", "ann@example.com", outbox: one.outbox)
            let bo = try await node2.signUp("Bo", "bo@example.com", outbox: two.outbox)
            let cy = try await node2.signUp("Cy", "cy@example.com", outbox: two.outbox)
            // One friend request an hour: Ann's second, on the other node, is refused.
            #expect(try await node1.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken).status.code < 300)
            let second = try await node2.call(.post, "/v1/friends/requests", json: ["userId": cy.id], token: ann.accessToken)
            #expect(second.errorCode == "rate_limited", "\(second.text)")
            // One call a minute: Ann calls Bo from node 1 and cancels; her next call, from node 2, is refused.
            // Bo asks Ann back (his one request), which makes them friends.
            #expect(try await node2.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken).status == .ok)
            let (onOne, _) = try await RealtimeClient.connect(port: node1.port!, token: ann.accessToken)
            let (onTwo, _) = try await RealtimeClient.connect(port: node2.port!, token: ann.accessToken)
            defer { onOne.close(); onTwo.close() }
            let id = try #require(try await Self.invite(onOne, bo)["callId"] as? String)
            #expect(try await onOne.command("call.hangup", ["callId": id]).ok == true)
            #expect(try await Self.invite(onTwo, bo).errorCode == "rate_limited")
        }
    }

    @Test func rowsOfACallNoNodeHoldsGoAtTheNextRenewal() async throws {
        try await TwoNodesTests.twoNodes { one, node1, two, node2 in
            let scene = try await Self.scene(one, node1, two, node2)
            defer { scene.close() }
            // Rows of a call node 1 does not hold (its release failed), renewed by nobody but node 1.
            let node = try #require(one.parts.events.nodes as? SharedNodeBus).node
            let old = Date().addingTimeInterval(-60).storageMillis
            let (ann, cy) = (scene.ann.id, scene.cy.id)
            try await one.parts.database.write { sql in
                for user in [ann, cy] {
                    try sql.execute(#"""
                        INSERT INTO "call_parties" ("user_id", "call_id", "node", "caller_id", "callee_id", "media", "started_at", "seen_at")
                        VALUES (?, 'left-behind', ?, ?, ?, 'audio', ?, ?)
                        """#, user, node, ann, cy, old, Date().storageMillis)
                }
            }
            // Within a renewal they go, and Ann is free: Bo's call from node 2 rings.
            try await Task.sleep(for: .seconds(4))
            let invite = try await Self.invite(scene.boSocket, scene.ann)
            #expect(invite["ended"] == nil, "\(invite)")
            let id = try #require(invite["callId"] as? String)
            _ = try await scene.annSocket.next(timeout: .seconds(10)) { $0.type == "call.incoming" && $0["callId"] as? String == id }
        }
    }
}

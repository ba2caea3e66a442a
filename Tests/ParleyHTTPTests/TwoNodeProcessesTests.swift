import Foundation
import ParleyTestSupport
import Testing

/// Two real `parley` processes on one PostgreSQL database, as two nodes behind a load balancer:
/// Ann's device on node 1, Bo's on node 2. A friend request and chat cross between their sockets
/// both ways, a block made on one node holds on both, and Ann's aiortc call to Bo rings on node 2,
/// is answered there with node 1's relay address, carries media both ways, and ends
/// `connection_lost` for Bo when node 1 is killed mid-call.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(3)))
struct TwoNodeProcessesTests {
    @Test func friendsAndChatCrossTheNodesAndABlockHoldsOnBoth() async throws {
        try await ParleyNodes.with(2) { nodes in
            let (one, two) = (nodes[0], nodes[1])
            let ann = try await one.http.signUp("Ann", "ann@example.com", outbox: one.outbox)
            let bo = try await two.http.signUp("Bo", "bo@example.com", outbox: two.outbox)
            let cy = try await one.http.signUp("Cy", "cy@example.com", outbox: one.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: one.port, token: ann.token)
            let (boSocket, _) = try await RealtimeClient.connect(port: two.port, token: bo.token)
            let (cySocket, _) = try await RealtimeClient.connect(port: one.port, token: cy.token)
            defer { annSocket.close(); boSocket.close(); cySocket.close() }

            // Ann asks on node 1; Bo's socket on node 2 rings; he accepts on node 2 and Ann's
            // socket on node 1 hears it.
            try await Self.befriend(asker: ann, askerNode: one, askerSocket: annSocket,
                                    answerer: bo, answererNode: two, answererSocket: boSocket)

            // Chat both ways, each sent on the sender's own socket, each received on the other node.
            let dialog = try await Self.privateDialog(ann, with: bo, on: one)
            let fromAnn = try await annSocket.command("message.send", ["dialogId": dialog, "clientMessageId": "a1", "kind": "text", "text": "hi from node 1"])
            #expect(fromAnn.ok == true, "\(fromAnn)")
            let atBo = try await boSocket.next(timeout: .seconds(10)) { $0.type == "message.new" && Self.message($0)?["senderId"] as? String == ann.id }
            #expect(Self.message(atBo)?["text"] as? String == "hi from node 1", "\(atBo)")
            let fromBo = try await boSocket.command("message.send", ["dialogId": dialog, "clientMessageId": "b1", "kind": "text", "text": "hi from node 2"])
            #expect(fromBo.ok == true, "\(fromBo)")
            let atAnn = try await annSocket.next(timeout: .seconds(10)) { $0.type == "message.new" && Self.message($0)?["senderId"] as? String == bo.id }
            #expect(Self.message(atAnn)?["text"] as? String == "hi from node 2", "\(atAnn)")
            for (socket, from) in [(annSocket, bo.id), (boSocket, ann.id)] {   // (each socket also hears its own message)
                #expect(await !socket.receives(within: .milliseconds(500)) { $0.type == "message.new" && Self.message($0)?["senderId"] as? String == from },
                        "no message twice")
            }

            // Cy (node 1) and Bo (node 2) are friends and write; then Bo blocks Cy on node 2.
            try await Self.befriend(asker: cy, askerNode: one, askerSocket: cySocket,
                                    answerer: bo, answererNode: two, answererSocket: boSocket)
            let cysDialog = try await Self.privateDialog(cy, with: bo, on: one)
            #expect(try await cySocket.command("message.send", ["dialogId": cysDialog, "clientMessageId": "c1", "kind": "text", "text": "before"]).ok == true)
            let before = try await boSocket.next(timeout: .seconds(10)) { $0.type == "message.new" && Self.message($0)?["senderId"] as? String == cy.id }
            #expect(Self.message(before)?["text"] as? String == "before", "\(before)")
            let block = try await two.http.call("PUT", "/v1/blocks/\(cy.id)", token: bo.token)
            #expect((200..<300).contains(block.status), "\(block.json)")

            // The block made on node 2 holds on node 1: Cy's message on her socket there, and
            // her call, are refused; and on node 2 as well.
            let refused = try await cySocket.command("message.send", ["dialogId": cysDialog, "clientMessageId": "c2", "kind": "text", "text": "after"])
            #expect(refused.errorCode == "blocked", "\(refused)")
            let refusedOnTwo = try await two.http.call("POST", "/v1/dialogs/\(cysDialog)/messages",
                                                       ["clientMessageId": "c3", "kind": "text", "text": "after, on node 2"], token: cy.token)
            #expect(refusedOnTwo.status == 403 && Self.errorCode(refusedOnTwo) == "blocked", "\(refusedOnTwo.status) \(refusedOnTwo.json)")
            let invite = try await cySocket.command("call.invite", ["to": bo.id, "media": "audio", "sdp": CallSignallingTests.offer])
            #expect(invite.errorCode == "blocked", "\(invite)")
            #expect(await !boSocket.receives(within: .seconds(1)) {
                ($0.type == "message.new" && Self.message($0)?["senderId"] as? String == cy.id) || $0.type == "call.incoming"
            }, "nothing from Cy reaches Bo")
            // Cy cannot ask again either, on either node.
            for node in [one, two] {
                let again = try await node.http.call("POST", "/v1/friends/requests", ["userId": bo.id], token: cy.token)
                #expect(again.status == 403 && Self.errorCode(again) == "blocked", "\(node.name): \(again.status) \(again.json)")
            }
        }
    }

    /// Ann's device is on node 1 and Bo's on node 2: Ann's call rings Bo on node 2, his answer
    /// (given on node 2) points at node 1's relay, where both legs are; media flows both ways;
    /// node 1 dies with SIGKILL and node 2 ends the call `connection_lost` for Bo.
    @Test func aCallAcrossTheNodesEndsConnectionLostWhenTheRelayNodeDies() async throws {
        let python = try AiortcPeer.python()
        try await ParleyNodes.with(2) { nodes in
            let (one, two) = (nodes[0], nodes[1])
            let ann = try await one.http.signUp("Ann", "ann@example.com", outbox: one.outbox)
            let bo = try await two.http.signUp("Bo", "bo@example.com", outbox: two.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: one.port, token: ann.token)
            let (boSocket, _) = try await RealtimeClient.connect(port: two.port, token: bo.token)
            defer { annSocket.close(); boSocket.close() }
            try await Self.befriend(asker: ann, askerNode: one, askerSocket: annSocket,
                                    answerer: bo, answererNode: two, answererSocket: boSocket)

            // --hold: the peers keep their connections until killed (closing DTLS would end the call).
            let annPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--hold"])
            let boPeer = try AiortcPeer(python: python, arguments: ["--from-first-frame", "--srtp", "cm80", "--hold"])
            defer { annPeer.kill(); boPeer.kill() }
            let annOffer = try #require(try await annPeer.next(timeout: .seconds(30)).sdp)
            let boOffer = try #require(try await boPeer.next(timeout: .seconds(30)).sdp)

            let invite = try await annSocket.command("call.invite", ["to": bo.id, "media": "video", "sdp": annOffer])
            #expect(invite.ok == true, "\(invite)")
            let callID = try #require(invite["callId"] as? String, "\(invite)")
            let annAnswer = try #require(invite["sdp"] as? String)
            #expect(Self.candidatePorts(annAnswer) == [one.mediaPort], "Ann's answer: \(annAnswer)")
            try annPeer.send(answer: annAnswer)

            let incoming = try await boSocket.next(timeout: .seconds(10)) { $0.type == "call.incoming" }
            #expect(incoming["callId"] as? String == callID && incoming["from"] as? String == ann.id, "\(incoming)")
            let accept = try await boSocket.command("call.accept", ["callId": callID, "sdp": boOffer])
            #expect(accept.ok == true, "\(accept)")
            let boAnswer = try #require(accept["sdp"] as? String, "\(accept)")
            // Both legs are on node 1 (the caller's): Bo, answering on node 2, is sent there.
            #expect(Self.candidatePorts(boAnswer) == [one.mediaPort],
                    "Bo's answer must point at node 1's relay (\(one.mediaPort)), not node 2's (\(two.mediaPort)): \(boAnswer)")
            try boPeer.send(answer: boAnswer)
            _ = try await annSocket.next(timeout: .seconds(10)) { $0.type == "call.accepted" }

            async let annResult = annPeer.next(timeout: .seconds(60))
            async let boResult = boPeer.next(timeout: .seconds(60))
            let results = try await [annResult, boResult]
            for (name, result) in zip(["Ann", "Bo"], results) {
                #expect(result.type == "result", "\(name): \(result.error ?? "")")
                #expect((result.audioFrames ?? 0) >= 150, "\(name) decoded \(result)")
                #expect((result.videoFrames ?? 0) >= 60, "\(name) decoded \(result)")
            }
            print("two nodes: frames Ann \(results[0].audioFrames ?? -1)/\(results[0].videoFrames ?? -1), Bo \(results[1].audioFrames ?? -1)/\(results[1].videoFrames ?? -1)")

            // Node 1 dies mid-call; node 2 notices and ends the call for Bo.
            let killedAt = ContinuousClock.now
            one.kill9()
            let ended = try await boSocket.next(timeout: .seconds(25)) { $0.type == "call.ended" }
            let after = ContinuousClock.now - killedAt
            #expect(ended["callId"] as? String == callID, "\(ended)")
            #expect(ended["reason"] as? String == "connection_lost", "\(ended)")
            let seconds = Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18
            print("two nodes: node 1 killed → Bo's call.ended on node 2 after \(String(format: "%.1f", seconds)) s")
            let calls = try await two.http.call("GET", "/v1/calls", token: bo.token).json["calls"] as? [[String: Any]] ?? []
            #expect(calls.first?["id"] as? String == callID, "Bo's calls on node 2: \(calls)")
        }
    }
}

extension TwoNodeProcessesTests {
    /// `asker` asks on their node; `answerer`'s socket on the other node gets `friend.request`,
    /// the answerer accepts there, and the asker's socket hears `friend.accepted`.
    static func befriend(asker: LiveHTTP.Person, askerNode: ParleyNode, askerSocket: RealtimeClient,
                         answerer: LiveHTTP.Person, answererNode: ParleyNode, answererSocket: RealtimeClient) async throws {
        let asked = try await askerNode.http.call("POST", "/v1/friends/requests", ["userId": answerer.id], token: asker.token)
        #expect(asked.status == 201, "\(asked.json)")
        let requestID = try #require((asked.json["request"] as? [String: Any])?["id"] as? String, "\(asked.json)")
        let request = try await answererSocket.next(timeout: .seconds(10)) { $0.type == "friend.request" }
        #expect(request["id"] as? String == requestID && request["from"] as? String == asker.id, "\(request)")
        let accepted = try await answererNode.http.call("POST", "/v1/friends/requests/\(requestID)/accept", token: answerer.token)
        #expect(accepted.status == 200, "\(accepted.json)")
        let heard = try await askerSocket.next(timeout: .seconds(10)) { $0.type == "friend.accepted" }
        #expect(heard["userId"] as? String == answerer.id, "\(heard)")
    }

    static func privateDialog(_ user: LiveHTTP.Person, with other: LiveHTTP.Person, on node: ParleyNode) async throws -> String {
        let reply = try await node.http.call("POST", "/v1/dialogs", ["type": "private", "userId": other.id], token: user.token)
        return try #require((reply.json["dialog"] as? [String: Any])?["id"] as? String, "\(reply.status) \(reply.json)")
    }

    static func message(_ frame: Frame) -> [String: Any]? { frame["message"] as? [String: Any] }

    static func errorCode(_ answer: LiveHTTP.Answer) -> String? { (answer.json["error"] as? [String: Any])?["code"] as? String }

    /// The ports of an SDP's UDP host candidates (`a=candidate:<foundation> <component> udp <priority> <address> <port> typ host`).
    static func candidatePorts(_ sdp: String) -> Set<Int> {
        Set(sdp.split(whereSeparator: \.isNewline).compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            guard line.hasPrefix("a=candidate:"), fields.count > 5, fields[2].lowercased() == "udp" else { return nil }
            return Int(fields[5])
        })
    }
}

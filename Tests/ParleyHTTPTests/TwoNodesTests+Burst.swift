import Foundation
import HummingbirdTesting
import ParleyTestSupport
import Testing

extension TwoNodesTests {
    /// Messages committed at once on both nodes, so that each node's delivery task takes many
    /// wake-ups and its own commits in one batch (one read from the table for all of them): each
    /// socket gets every message once, in its own numbering.
    @Test func aBurstFromBothNodesReachesEverySocketOnceInOrder() async throws {
        try await Self.twoNodes { one, node1, two, node2 in
            let ann = try await node1.signUp("Ann", "ann@example.com", outbox: one.outbox)
            let bo = try await node2.signUp("Bo", "bo@example.com", outbox: two.outbox)
            _ = try await node1.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            _ = try await node2.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken)
            let dialog = try await node1.privateDialog(ann, with: bo)
            let (annSocket, _) = try await RealtimeClient.connect(port: node1.port!, token: ann.accessToken)
            defer { annSocket.close() }
            let (boSocket, _) = try await RealtimeClient.connect(port: node2.port!, token: bo.accessToken)
            defer { boSocket.close() }

            let count = 40
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<count {
                    let (node, user) = n % 2 == 0 ? (node2, bo) : (node1, ann)
                    group.addTask {
                        let reply = try await node.sendText(user, dialog, "b\(n)")
                        #expect(reply.status == .created)
                    }
                }
                try await group.waitForAll()
            }
            for socket in [annSocket, boSocket] {
                let got = try await socket.events("message.new", count: count, timeout: .seconds(15))
                #expect(Set(got.compactMap { $0.message?["text"] as? String }) == Set((0..<count).map { "b\($0)" }))
                let seqs = got.compactMap(\.seq)
                #expect(seqs == seqs.sorted() && Set(seqs).count == count, "\(seqs)")
                #expect(await socket.receives { $0.type == "message.new" } == false, "no message twice")
            }
        }
    }
}

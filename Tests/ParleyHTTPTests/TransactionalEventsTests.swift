import Foundation
import ParleyCore
import ParleyProtocol
import ParleyRealtime
import ParleyStorage
import Testing

/// Events stored inside someone else's transaction (a message and its `message.new`): kept only
/// if it commits, and delivered only when the caller says it has.
@Suite struct TransactionalEventsTests {
    struct Boom: Error {}

    @Test func eventsOfAFailedTransactionAreNeitherKeptNorDelivered() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            defer { socket.close() }
            let events = parley.parts.events, database = parley.parts.database, annID = UserID(rawValue: ann.id)
            let before = try await events.latestSeq(of: annID)

            await #expect(throws: Boom.self) {
                try await database.transaction { sql in
                    _ = try await events.store(.storyNew(StoryEvent(storyId: "lost", ownerId: ann.id)), to: [annID], in: sql)
                    throw Boom()
                }
            }
            #expect(try await events.latestSeq(of: annID) == before)
            #expect(await !socket.receives { $0.type == "story.new" })

            // Committed: stored at once, on the socket only when the delivery runs.
            let delivery = try await database.transaction { sql in
                try await events.store(.storyNew(StoryEvent(storyId: "kept", ownerId: ann.id)), to: [annID, annID], in: sql)
            }
            #expect(try await events.latestSeq(of: annID) == before + 1)
            #expect(await !socket.receives(within: .milliseconds(200)) { $0.type == "story.new" })
            delivery()
            let note = try await socket.next { $0.type == "story.new" }
            #expect(note["storyId"] as? String == "kept")
            #expect(note.seq == Int(before) + 1)
        }
    }
}

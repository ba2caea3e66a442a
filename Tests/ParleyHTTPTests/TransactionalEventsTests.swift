import Foundation
import ParleyCore
import ParleyProtocol
import ParleyRealtime
import ParleyStorage
import Testing

/// Events stored inside someone else's transaction (a message and its `message.new`): kept and
/// delivered only if it commits, and delivered only after the commit.
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
                try await database.write { sql in
                    try events.store(.storyNew(StoryEvent(storyId: "lost", ownerId: ann.id)), to: [annID], in: sql)
                    throw Boom()
                }
            }
            #expect(try await events.latestSeq(of: annID) == before)
            #expect(await !socket.receives(within: .milliseconds(300)) { $0.type == "story.new" })

            // Committed: stored, and on the socket once, with the next number.
            try await database.write { sql in
                try events.store(.storyNew(StoryEvent(storyId: "kept", ownerId: ann.id)), to: [annID, annID], in: sql)
            }
            #expect(try await events.latestSeq(of: annID) == before + 1)
            let note = try await socket.next { $0.type == "story.new" }
            #expect(note["storyId"] as? String == "kept")
            #expect(note.seq == Int(before) + 1)
        }
    }
}

import Foundation
@testable import ParleyChat
import ParleyCore
import ParleyFriends
import ParleyProtocol
import ParleyStorage
import Testing

/// A send decided in one trip to the storage (`ChatStore.appendMessage(_:announce:deciding:)`):
/// the decision sees the dialog's state beside the write (in its transaction on SQLite, just
/// before its one statement on PostgreSQL), and a send it refuses or leaves to the step-by-step
/// path writes nothing.
@Suite struct SendInOneStepTests {
    struct Refused: Error {}

    @Test func aSendIsStoredOnlyWhenItsDecisionNamesTheRecipients() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let store = SQLChatStore(database: parley.parts.database, events: parley.parts.events)
            let events = parley.parts.events
            let (annID, boID, dialogID) = (UserID(rawValue: ann.id), UserID(rawValue: bo.id), DialogID(rawValue: dialog))
            let before = (ann: try await events.latestSeq(of: annID), bo: try await events.latestSeq(of: boID))
            func record(_ clientID: String) -> MessageRecord {
                MessageRecord(id: .generate(), dialogID: dialogID, seq: 0, senderID: annID, clientMessageID: clientID, kind: .text,
                              text: "hi", attachmentID: nil, call: nil, createdAt: Date())
            }
            let announce = EncodedEvent(.typing(TypingEvent(dialogId: dialog, userId: ann.id)))

            // Left to the step-by-step path, or refused: nothing stored, nobody told.
            let seen = Seen()
            let deferred = try await store.appendMessage(record("a"), announce: announce) { context in
                seen.context = context
                return nil
            }
            #expect(deferred == nil)
            let members: Set<UserID> = Set(seen.context?.members.map(\.userID) ?? [])
            #expect(members == [annID, boID])
            #expect(seen.context?.standing.reach == .friends)
            await #expect(throws: Refused.self) {
                _ = try await store.appendMessage(record("b"), announce: announce) { _ in throw Refused() }
            }
            #expect(try await store.messages(in: dialogID, after: 0, before: nil, limit: 10).isEmpty)
            #expect(try await store.dialog(id: dialogID)?.lastMessageSeq == 0)

            // Named: stored with the next number, its event for those recipients alone.
            let stored = try #require(try await store.appendMessage(record("c"), announce: announce) { _ in [boID] })
            #expect(stored.isNew && stored.message.seq == 1 && stored.members.count == 2)
            #expect(try await events.latestSeq(of: boID) == before.bo + 1)
            #expect(try await events.latestSeq(of: annID) == before.ann)

            // The same client id again: the stored message, nothing new.
            let again = try #require(try await store.appendMessage(record("c"), announce: announce) { _ in [boID] })
            #expect(!again.isNew && again.message.id == stored.message.id)
            #expect(try await events.latestSeq(of: boID) == before.bo + 1)

            // No such dialog: the decision is told so (and refuses).
            let nowhere = MessageRecord(id: .generate(), dialogID: DialogID(rawValue: "nowhere"), seq: 0, senderID: annID,
                                        clientMessageID: "d", kind: .text, text: "hi", attachmentID: nil, call: nil, createdAt: Date())
            await #expect(throws: Refused.self) {
                _ = try await store.appendMessage(nowhere, announce: announce) { context in
                    if context == nil { throw Refused() }
                    return []
                }
            }
        }
    }

    /// The send's context as SQLite reads it (in steps) and as PostgreSQL does (one statement),
    /// both run here on the same tables: the same dialog, members, request and reach, and the
    /// same blockers among the members (the steps read every blocker of the sender).
    @Test func theContextReadInStepsAndInOneStatementAgree() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let (annID, boID, cyID) = (UserID(rawValue: ann.id), UserID(rawValue: bo.id), UserID(rawValue: cy.id))
            let database = parley.parts.database
            let store = SQLChatStore(database: database, events: parley.parts.events)
            let friends = SQLFriendStore(database: database)
            let group = DialogRecord(id: .generate(), type: .group, name: "Three", avatarAttachmentID: nil, createdBy: annID,
                                     createdAt: Date(), updatedAt: Date(), lastMessageSeq: 0)
            try await store.createDialog(group, pairKey: nil, members: [annID, boID, cyID])
            func bothAgree(_ id: DialogID, _ sender: UserID) async throws -> SendContext? {
                let (steps, one) = try await database.read { sql in
                    (try SQLChatStore.sendContextInSteps(dialog: id, sender: sender, in: sql),
                     try SQLChatStore.sendContextInOneStatement(dialog: id, sender: sender, in: sql))
                }
                #expect(steps?.dialog == one?.dialog && steps?.request == one?.request)
                #expect(steps?.members == one?.members && steps?.standing.reach == one?.standing.reach)
                let members = Set(steps?.members.map(\.userID) ?? [])
                #expect(steps?.standing.blockers.intersection(members) == one?.standing.blockers)
                return one
            }
            let privateDialog = DialogID(rawValue: dialog)
            #expect(try await bothAgree(privateDialog, annID)?.standing.reach == .friends)
            _ = try await friends.block(blocker: cyID, blocked: annID, at: Date())
            #expect(try await bothAgree(group.id, annID)?.standing.blockers == [cyID])
            _ = try await friends.block(blocker: annID, blocked: boID, at: Date())
            #expect(try await bothAgree(privateDialog, annID)?.standing.reach == .blocked)
            #expect(try await bothAgree(privateDialog, boID)?.standing.reach == .blocked)
            #expect(try await bothAgree(group.id, boID)?.standing.blockers == [annID])
            #expect(try await bothAgree(DialogID(rawValue: "nowhere"), annID) == nil)
            // A stranger's first message opens a request: the dialog is read with it.
            let dee = try await client.signUp("Dee", "dee@example.com", outbox: parley.outbox)
            try await MessageRequestTests.everyone(cy, client)
            let withDee = try await client.privateDialog(dee, with: cy)
            try #require(try await client.sendText(dee, withDee, "hello").status == .created)
            let opened = try await bothAgree(DialogID(rawValue: withDee), UserID(rawValue: dee.id))
            #expect(opened?.request != nil && opened?.standing.reach == .notFriends)
        }
    }

    final class Seen: @unchecked Sendable {   // written by the decision, read after the write returned
        var context: SendContext?
    }
}

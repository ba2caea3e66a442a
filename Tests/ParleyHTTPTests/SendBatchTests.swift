import Foundation
import HummingbirdTesting
@testable import ParleyChat
import ParleyCore
import ParleyHTTP
import ParleyProtocol
@testable import ParleyRealtime
import ParleyStorage
import Testing

/// Sends that arrive together: on PostgreSQL gathered into batches (`SendBatcher`, one statement
/// for a batch's contexts and one for its writes, `SQLChatStore.sendAll`), on SQLite the writer's
/// group commit. Either way each dialog's numbers and each member's event numbers run on without a
/// gap or a repeat, each message is stored once, and one send refused leaves the others alone.
@Suite struct SendBatchTests {
    struct Refused: Error {}

    /// Ann, Bo and Cy: Ann and Bo's private dialog and a group of the three.
    struct Three {
        let store: SQLChatStore
        let events: EventLog
        let database: Database
        let ann: UserID, bo: UserID, cy: UserID
        let pair: DialogID, group: DialogID

        func record(_ sender: UserID, _ dialog: DialogID, _ clientID: String) -> MessageRecord {
            MessageRecord(id: .generate(), dialogID: dialog, seq: 0, senderID: sender, clientMessageID: clientID, kind: .text,
                          text: Self.text(clientID), attachmentID: nil, call: nil, createdAt: Date())
        }

        /// A message's text, with what JSON escapes and what it carries as it is.
        static func text(_ clientID: String) -> String { "\(clientID) \"q\" \\ / é 😀\n\t<b>" }

        /// Every member of the dialog but the sender.
        func toOthers(_ sender: UserID) -> @Sendable (SendContext?) throws -> [UserID]? {
            { context in
                guard let context else { throw Refused() }
                return context.members.map(\.userID).filter { $0 != sender }
            }
        }

        func announce(_ sender: UserID, _ dialog: DialogID) -> EncodedEvent {
            EncodedEvent(.typing(TypingEvent(dialogId: dialog.rawValue, userId: sender.rawValue)))
        }

        /// Each user's events since `since`, oldest first.
        func eventsOf(_ user: UserID, since: Int64) async throws -> [StoredEvent] {
            try await events.events(of: user, since: since, limit: 10_000).events
        }
    }

    static func three(_ parley: TestParley, _ client: any TestClientProtocol, metrics: MetricsRegistry = MetricsRegistry()) async throws
        -> Three {
        let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
        let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
        let (annID, boID, cyID) = (UserID(rawValue: ann.id), UserID(rawValue: bo.id), UserID(rawValue: cy.id))
        let store = SQLChatStore(database: parley.parts.database, events: parley.parts.events, metrics: metrics)
        let group = DialogRecord(id: .generate(), type: .group, name: "Three", avatarAttachmentID: nil, createdBy: annID,
                                 createdAt: Date(), updatedAt: Date(), lastMessageSeq: 0)
        try await store.createDialog(group, pairKey: nil, members: [annID, boID, cyID])
        return Three(store: store, events: parley.parts.events, database: parley.parts.database, ann: annID, bo: boID, cy: cyID,
                     pair: DialogID(rawValue: dialog), group: group.id)
    }

    @Test func sendsAtOnceAreNumberedWithoutGapsAndEachStoredOnce() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let t = try await Self.three(parley, client)
            let before = (ann: try await t.events.latestSeq(of: t.ann), bo: try await t.events.latestSeq(of: t.bo),
                          cy: try await t.events.latestSeq(of: t.cy))
            // 60 sends at once: each of the three into the group, Ann and Bo into their dialog, and
            // each of Ann's group messages a second time under the same client id.
            struct Sent: Sendable { let clientID: String; let settled: SettledMessage }
            let sent = try await withThrowingTaskGroup(of: Sent.self) { group in
                for n in 0..<10 {
                    for (sender, dialog, name) in [(t.ann, t.group, "ag"), (t.bo, t.group, "bg"), (t.cy, t.group, "cg"),
                                                   (t.ann, t.pair, "ap"), (t.bo, t.pair, "bp"), (t.ann, t.group, "ag")] {
                        let clientID = "\(name)\(n)"
                        let record = t.record(sender, dialog, clientID)
                        group.addTask {
                            let settled = try await t.store.appendMessage(record, announce: t.announce(sender, dialog), deciding: t.toOthers(sender))
                            return Sent(clientID: clientID, settled: try #require(settled))
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(sent.count == 60)
            if let batcher = t.store.batcher { #expect(batcher.largestBatch > 1, "the sends went one by one") }
            // One message per client id: the second send of each of Ann's got the first.
            let byClientID = Dictionary(grouping: sent, by: \.clientID)
            #expect(byClientID.count == 50)
            for (clientID, sends) in byClientID where clientID.hasPrefix("ag") {
                #expect(sends.count == 2 && Set(sends.map(\.settled.message.id)).count == 1)
                #expect(sends.filter(\.settled.isNew).count == 1)
            }
            // Each dialog numbered 1…N, once each, every text as it was sent.
            let inGroup = try await t.store.messages(in: t.group, after: 0, before: nil, limit: 100)
            let inPair = try await t.store.messages(in: t.pair, after: 0, before: nil, limit: 100)
            for message in inGroup + inPair { #expect(message.text == Three.text(message.clientMessageID)) }
            #expect(inGroup.map(\.seq).sorted() == Array(1...30))
            #expect(inPair.map(\.seq).sorted() == Array(1...20))
            #expect(try await t.store.dialog(id: t.group)?.lastMessageSeq == 30)
            #expect(try await t.store.dialog(id: t.pair)?.lastMessageSeq == 20)
            // Each new message answered with the number it was stored under.
            let stored = Dictionary(uniqueKeysWithValues: (inGroup + inPair).map { ($0.id, $0.seq) })
            for one in sent { #expect(stored[one.settled.message.id] == one.settled.message.seq) }
            // Each member's events: one per message of the others, numbered on without a gap.
            for (user, since, expected) in [(t.ann, before.ann, 20 + 10), (t.bo, before.bo, 20 + 10), (t.cy, before.cy, 20)] {
                let events = try await t.eventsOf(user, since: since)
                #expect(events.count == expected, "\(user)")
                #expect(events.map(\.seq) == Array((since + 1)...(since + Int64(expected))), "\(user)")
                // As stored: each the announcement of a message by someone else, read back whole.
                for event in events {
                    guard case .typing(let typing)? = event.event else { Issue.record("not as sent: \(event)"); continue }
                    #expect([t.group.rawValue, t.pair.rawValue].contains(typing.dialogId) && typing.userId != user.rawValue)
                }
            }
            // The senders have read their own messages: their read position is their newest.
            for (user, dialog) in [(t.ann, t.group), (t.bo, t.group), (t.cy, t.group), (t.ann, t.pair), (t.bo, t.pair)] {
                let newest = (inGroup + inPair).filter { $0.dialogID == dialog && $0.senderID == user }.map(\.seq).max()
                #expect(try await t.store.membership(user, in: dialog)?.readSeq == newest)
            }
        }
    }

    /// A send PostgreSQL refuses (a NUL character in its text, which no PostgreSQL text holds)
    /// fails its batch's statement as a whole: each of its sends then goes alone, and only that
    /// one fails. The metrics count such batches, and the batches' sizes.
    @Test func aSendThatFailsItsBatchFailsAlone() async throws {
        let parley = try await TestParley.start()
        guard parley.parts.database.kind == .postgresql else { return }
        try await parley.test(.live) { client in
            let metrics = MetricsRegistry()
            let t = try await Self.three(parley, client, metrics: metrics)
            let before = try await t.events.latestSeq(of: t.cy)
            let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
                for n in 0..<30 {
                    var record = t.record(t.bo, t.group, "m\(n)")
                    if n % 10 == 5 { record.text = "nul \u{0} here" }
                    group.addTask {
                        let stored = try? await t.store.appendMessage(record, announce: t.announce(t.bo, t.group), deciding: t.toOthers(t.bo))
                        return (record.clientMessageID, stored != nil)
                    }
                }
                return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(t.store.batcher!.largestBatch > 1, "the sends went one by one")
            #expect(outcomes.filter { !$0.value }.map(\.key).sorted() == ["m15", "m25", "m5"])
            let stored = try await t.store.messages(in: t.group, after: 0, before: nil, limit: 100)
            #expect(stored.map(\.seq).sorted() == Array(1...27))
            #expect(try await t.eventsOf(t.cy, since: before).map(\.seq) == Array((before + 1)...(before + 27)))
            let figures = try Exposition(parsing: String(decoding: metrics.render(), as: UTF8.self))
            let fallbacks = try #require(figures.value("parley_message_batch_fallbacks_total"))
            #expect(fallbacks >= 1 && fallbacks <= 3, "each NUL fails its batch, unless two shared one")
            #expect(figures.value("parley_message_batch_size_sum") == 30, "every send in one batch or another")
            #expect(figures["parley_message_batch_size"]?.type == "histogram")
            #expect((figures.value("parley_message_batch_size_count") ?? 30) < 30, "some went together")
        }
    }

    /// A batch as `sendAll` runs it (on PostgreSQL; on SQLite `SendBatcher` is not used):
    /// a refused send, one left to the step-by-step path, one sent before, one into a dialog that
    /// is gone and two new ones into one dialog, each answered as it would be alone.
    @Test func aBatchAnswersEachSendAsAloneAndStoresOnlyTheNew() async throws {
        let parley = try await TestParley.start()
        guard parley.parts.database.kind == .postgresql else { return }
        try await parley.test(.live) { client in
            let t = try await Self.three(parley, client)
            let first = try #require(try await t.store.appendMessage(t.record(t.ann, t.group, "earlier"), announce: t.announce(t.ann, t.group),
                                                                     deciding: t.toOthers(t.ann)))
            let before = (bo: try await t.events.latestSeq(of: t.bo), cy: try await t.events.latestSeq(of: t.cy))
            let sends = [
                SQLChatStore.BatchedSend(message: t.record(t.bo, t.group, "refused"), announce: t.announce(t.bo, t.group),
                                         decide: { _ in throw Refused() }),
                SQLChatStore.BatchedSend(message: t.record(t.ann, t.group, "new 1"), announce: t.announce(t.ann, t.group),
                                         decide: t.toOthers(t.ann)),
                SQLChatStore.BatchedSend(message: t.record(t.ann, t.pair, "stepwise"), announce: t.announce(t.ann, t.pair),
                                         decide: { _ in nil }),
                SQLChatStore.BatchedSend(message: t.record(t.ann, t.group, "earlier"), announce: t.announce(t.ann, t.group),
                                         decide: t.toOthers(t.ann)),
                SQLChatStore.BatchedSend(message: t.record(t.ann, DialogID(rawValue: "gone"), "x"), announce: t.announce(t.ann, t.group),
                                         decide: { context in context == nil ? [] : nil }),
                SQLChatStore.BatchedSend(message: t.record(t.cy, t.group, "new 2"), announce: t.announce(t.cy, t.group),
                                         decide: { _ in [t.bo] }),
            ]
            let events = t.events
            let outcomes = try await t.database.writeAutocommit { sql in try SQLChatStore.sendAll(sends, events: events, in: sql) }
            #expect(outcomes.count == 6)
            #expect(throws: Refused.self) { try outcomes[0].get() }
            let new1 = try #require(try outcomes[1].get())
            #expect(new1.isNew && new1.message.seq == 2 && new1.members.count == 3)
            #expect(try outcomes[2].get() == nil)
            let again = try #require(try outcomes[3].get())
            #expect(!again.isNew && again.message.id == first.message.id && again.message.seq == 1)
            // No such dialog: the decision sees no context, and nothing is stored.
            #expect(try outcomes[4].get() == nil)
            let new2 = try #require(try outcomes[5].get())
            #expect(new2.isNew && new2.message.seq == 3)
            let messages = try await t.store.messages(in: t.group, after: 0, before: nil, limit: 10)
            #expect(messages.map(\.clientMessageID) == ["new 2", "new 1", "earlier"])
            #expect(try await t.store.messages(in: t.pair, after: 0, before: nil, limit: 10).isEmpty)
            // Bo got both new ones, in their order; Cy only Ann's (Cy's own named Bo alone).
            #expect(try await t.eventsOf(t.bo, since: before.bo).count == 2)
            let boEvents = try await t.eventsOf(t.bo, since: before.bo)
            #expect(boEvents.map(\.seq) == [before.bo + 1, before.bo + 2])
            #expect(try await t.eventsOf(t.cy, since: before.cy).map(\.seq) == [before.cy + 1])
            #expect(try await t.store.membership(t.cy, in: t.group)?.readSeq == 3)
            #expect(try await t.store.membership(t.ann, in: t.group)?.readSeq == 2)
        }
    }

    /// The batch's write statement as a connection keeps it (its generic plan, made at its sixth
    /// run) while the dialogs are a table of a few pages, never analysed: each dialog's counter is
    /// found by its key. Taken by `= ANY` of the locked ids, it was planned as a scan of the whole
    /// table for each dialog of the batch, and that plan was kept as the table grew.
    @Test func theBatchWriteFindsEachDialogByItsKeyInTheKeptPlan() async throws {
        let parley = try await TestParley.start()
        guard parley.parts.database.kind == .postgresql else { return }
        try await parley.test(.live) { client in
            let t = try await Self.three(parley, client)
            // 600 dialogs more, in about ten pages: where a scan costs what ten lookups do.
            try await t.database.write { sql in
                try sql.send("""
                    INSERT INTO dialogs (id, type, name, created_by, created_at, updated_at, last_message_seq)
                    SELECT CAST(gen_random_uuid() AS TEXT), 'group', 'Dialog ' || n, ?, 0, 0, 0 FROM generate_series(1, 600) AS n
                    """, t.ann.rawValue)
            }
            let statement = SQLChatStore.writeStatement(t.events.clauses(storingEach: []))
            let plan = try await t.database.write { sql in
                try sql.send("SET LOCAL plan_cache_mode = force_generic_plan")
                try sql.send("PREPARE batch_write AS " + statement)
                let rows = try sql.query("EXPLAIN EXECUTE batch_write('[]', '[]', '[]', 0)")
                try sql.send("DEALLOCATE batch_write")
                return try rows.map { try $0.decode(column: "QUERY PLAN", as: String.self) }
            }
            #expect(plan.contains { $0.contains("Update on dialogs") })
            #expect(plan.contains { $0.contains("Index Scan using dialogs_pkey on dialogs d") })
            #expect(!plan.contains { $0.contains("Seq Scan on dialogs") }, "\(plan.joined(separator: "\n"))")
        }
    }
}

import Foundation
import HummingbirdTesting
@testable import ParleyChat
import ParleyCore
import ParleyHTTP
import ParleyProtocol
import ParleyRealtime
import ParleyStorage
import Testing

/// Messages go with their dialog and events with their account, on both engines: on PostgreSQL
/// by triggers (chat.5, events.4) that took the place of the foreign keys checked for each row
/// written, on SQLite by those keys. What kept a row from pointing nowhere still does: a message
/// into a dialog that is gone is refused, and so is an event for an account that is gone.
@Suite struct RowsFollowTheirParentsTests {
    @Test func messagesGoWithTheirDialogAndEventsWithTheirAccount() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let t = try await SendBatchTests.three(parley, client)
            for n in 0..<3 {
                for dialog in [t.group, t.pair] {
                    _ = try await t.store.appendMessage(t.record(t.ann, dialog, "\(dialog.rawValue)-\(n)"), announce: t.announce(t.ann, dialog),
                                                        deciding: t.toOthers(t.ann))
                }
            }
            func count(_ sql: String, _ id: String) async throws -> Int {
                try await t.database.read { try $0.scalar(sql, id, as: Int.self) ?? -1 }
            }
            let messagesIn = "SELECT COUNT(*) FROM messages WHERE dialog_id = ?", eventsOf = "SELECT COUNT(*) FROM user_events WHERE user_id = ?"
            #expect(try await count(messagesIn, t.group.rawValue) == 3)

            try await t.store.deleteDialog(t.group)
            #expect(try await count(messagesIn, t.group.rawValue) == 0)
            #expect(try await count(messagesIn, t.pair.rawValue) == 3, "the other dialog keeps its messages")
            // A send whose decision lets it through still finds no dialog to number it in.
            let late = try? await t.store.appendMessage(t.record(t.ann, t.group, "late"), announce: t.announce(t.ann, t.group),
                                                        deciding: { _ in [t.bo] })
            #expect(late == nil)
            #expect(try await count(messagesIn, t.group.rawValue) == 0)

            let cyHad = try await count(eventsOf, t.cy.rawValue)
            #expect(try await count(eventsOf, t.bo.rawValue) > 0 && cyHad > 0)
            try await t.database.write { sql in try sql.send("DELETE FROM users WHERE id = ?", t.bo.rawValue) }
            #expect(try await count(eventsOf, t.bo.rawValue) == 0)
            #expect(try await count(eventsOf, t.cy.rawValue) == cyHad, "the others keep theirs")
            await #expect(throws: (any Error).self) {
                try await t.database.write { sql in try t.events.store(t.announce(t.ann, t.pair), to: [t.bo], in: sql) }
            }
            #expect(try await count(eventsOf, t.bo.rawValue) == 0)

            // On PostgreSQL no key is checked for each message or event written.
            if t.database.kind == .postgresql {
                let keys = try await t.database.read { sql in
                    try sql.scalar("""
                        SELECT COUNT(*) FROM pg_constraint
                        WHERE contype = 'f' AND conrelid IN (CAST('messages' AS regclass), CAST('user_events' AS regclass))
                        """, as: Int.self)
                }
                #expect(keys == 0)
            }
        }
    }
}

import Foundation
import Logging
import ParleyChat
import ParleyCore
import ParleyStorage
import Testing

/// A database written by the storage layer before this one (tables, rows, recorded migrations)
/// opens, migrates, and goes on where it was.
@Suite struct ExistingDatabaseTests {
    @Test func aDatabaseFromBeforeOpensMigratesAndGoesOn() async throws {
        let directory = TestParley.newDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try await Database.openSQLite(path: directory + "/parley.sqlite", logger: Logger(label: "fixture"))
        try await old.write { try $0.execute(script: DatabaseFixtures.before2026_11_25) }
        try await old.close()

        let parley = try await TestParley.start(in: directory) { $0.databaseURL = "" }   // the SQLite file above, whatever the pass
        try await parley.test { _ in
            let chat = parley.parts.chat, bo = UserID(rawValue: "u-bo"), dialog = DialogID(rawValue: "d-1")
            let (history, _) = try await chat.history(bo, dialog, before: nil, limit: 10)
            #expect(history.map(\.text) == ["third", "second", "first"])

            // The dialog's numbering goes on from the stored counter.
            _ = try await chat.send(bo, to: dialog, OutgoingMessage(clientMessageID: "c4", kind: .text, text: "fourth", attachmentID: nil))
            let (after, _) = try await chat.history(bo, dialog, before: nil, limit: 10)
            #expect(after.map(\.text) == ["fourth", "third", "second", "first"])

            // Users stored before the search index existed are found through it.
            let found = try await parley.parts.accounts.search(query: "nn le", viewer: bo, cursor: nil, limit: 10)
            #expect(found.users.map(\.id.rawValue) == ["u-ann"])
            let byAddress = try await parley.parts.accounts.search(query: "ann@example.com", viewer: bo, cursor: nil, limit: 10)
            #expect(byAddress.users.map(\.id.rawValue) == ["u-ann"])
        }
    }
}

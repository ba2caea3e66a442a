import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyCore
import Testing

/// Uploads still arriving count: together they stage no more than the uploader's quota has room
/// for, a user has only a few under way at once, and one cut off leaves nothing behind.
@Suite struct UploadsUnderWayTests {
    /// What is in the attachment store's staging folder.
    static func staged(_ parley: TestParley) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: parley.directory + "/files/.staging")) ?? []
    }

    /// Waits (up to 10 s: the whole suite may be running) until the server holds `uploads` uploads
    /// of `user` under way — and, given `bytes`, that many bytes of quota for them (an upload takes
    /// its place first, then reads the stored total and reserves).
    static func waitForUploads(_ parley: TestParley, _ user: TestUser, _ uploads: Int, bytes: Int? = nil) async throws {
        func reached() -> Bool {
            let held = parley.parts.chat.uploadsUnderWay(UserID(rawValue: user.id))
            return held.uploads == uploads && (bytes == nil || held.bytes == bytes)
        }
        for _ in 0..<200 where !reached() { try await Task.sleep(for: .milliseconds(50)) }
        try #require(reached(), "\(parley.parts.chat.uploadsUnderWay(UserID(rawValue: user.id)))")
    }

    @Test func parallelUploadsTogetherStayWithinTheQuota() async throws {
        let size = 40_000
        let parley = try await TestParley.start { $0.attachmentQuotaBytes = 100_000 }
        let files = (11...13 as ClosedRange<UInt64>).map { UploadTests.png(padding: size - TestImages.png.count, seed: $0) }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await parley.test(.live) { client in
                let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
                // Two 40 000-byte uploads under way: nothing stored yet, 80 000 of the 100 000 held.
                let first = HeldUpload.start(http, port: client.port!, token: ann.accessToken, file: files[0])
                let second = HeldUpload.start(http, port: client.port!, token: ann.accessToken, file: files[1])
                try await Self.waitForUploads(parley, ann, 2, bytes: 2 * size)

                // A third would take the three past the quota: refused while it arrives.
                let third = try await client.call(.post, "/v1/attachments", raw: files[2], token: ann.accessToken)
                #expect(third.status == .contentTooLarge, "\(third.text)")
                #expect(third.errorCode == "quota_exceeded")

                // The two under way fit, and are stored.
                #expect(try await first.finish().status == .created)
                #expect(try await second.finish().status == .created)
                #expect(parley.parts.chat.uploadsUnderWay(UserID(rawValue: ann.id)) == (0, 0))
                #expect(Self.staged(parley) == [], "nothing is left staged")
                #expect(UploadTests.storedFiles(parley).count == 2)
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    @Test func aUserHasOnlyAFewUploadsUnderWayAtOnce() async throws {
        let parley = try await TestParley.start()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await parley.test(.live) { client in
                let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
                let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
                // Four (the default `concurrentUploadsPerUser`) under way, small as they are.
                let held = (21...24 as ClosedRange<UInt64>).map { seed in
                    HeldUpload.start(http, port: client.port!, token: ann.accessToken, file: UploadTests.png(padding: 20_000, seed: seed))
                }
                try await Self.waitForUploads(parley, ann, 4)

                let fifth = try await client.call(.post, "/v1/attachments", raw: UploadTests.png(padding: 100, seed: 25), token: ann.accessToken)
                #expect(fifth.status == .tooManyRequests, "\(fifth.text)")
                #expect(fifth.errorCode == "rate_limited")
                #expect(Int(fifth.headers[.retryAfter] ?? "") ?? 0 > 0)
                // Bo's uploads are his own.
                let bos = try await client.call(.post, "/v1/attachments", raw: UploadTests.png(padding: 100, seed: 26), token: bo.accessToken)
                #expect(bos.status == .created, "\(bos.text)")

                // One finishes: Ann has a place again.
                #expect(try await held[0].finish().status == .created)
                let again = try await client.call(.post, "/v1/attachments", raw: UploadTests.png(padding: 100, seed: 27), token: ann.accessToken)
                #expect(again.status == .created, "\(again.text)")

                // The other three are cut off: their places, their room and their bytes go with them.
                for upload in held.dropFirst() { await upload.abort() }
                try await Self.waitForUploads(parley, ann, 0)
                #expect(parley.parts.chat.uploadsUnderWay(UserID(rawValue: ann.id)).bytes == 0)
                #expect(Self.staged(parley) == [], "nothing of a cut-off upload stays staged")
                #expect(UploadTests.storedFiles(parley).count == 3)
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyTestSupport
import Testing

@Suite struct StoriesTests {
    /// A real MP4 container (ftyp, mdat, moov with a video track) lasting `ms` milliseconds.
    static func video(ms: Int) -> [UInt8] {
        ISOWriter.movie(moov: ISOWriter.videoMoov(timescale: 600, duration: UInt64(ms * 600 / 1000)))
    }

    func upload(_ bytes: [UInt8], _ user: TestUser, _ client: some TestClientProtocol) async throws -> String {
        let reply = try await client.call(.post, "/v1/attachments", raw: bytes, token: user.accessToken)
        return try #require(reply["id"] as? String, "\(reply.text)")
    }

    @Test func videosUnderAMinuteAreStoriesAndLongerOnesAreNot() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let short = try await upload(Self.video(ms: 59_000), ann, client)
            let long = try await upload(Self.video(ms: 61_000), ann, client)
            let accepted = try await client.call(.post, "/v1/stories", json: ["attachmentId": short, "title": "Beach"], token: ann.accessToken)
            #expect(accepted.status == .created, "\(accepted.text)")
            let story = accepted["story"] as? JSON
            #expect(story?["kind"] as? String == "video")
            #expect(story?["durationMs"] as? Int == 59_000)
            #expect(story?["viewCount"] as? Int == 0)
            #expect(story?["expiresAt"] as? String == "2026-11-23T12:00:00Z")
            let refused = try await client.call(.post, "/v1/stories", json: ["attachmentId": long, "title": "Too long"], token: ann.accessToken)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorCode == "video_too_long")

            let image = try await upload(TestImages.png, ann, client)
            #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": " "], token: ann.accessToken).errorCode == "invalid_title")
            #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": String(repeating: "t", count: 101)], token: ann.accessToken).errorCode == "invalid_title")
            #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": "nope", "title": "x"], token: ann.accessToken).errorCode == "attachment_not_found")
            #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": "Sunset"], token: ann.accessToken).status == .created)
        }
    }

    @Test func storiesLastExactlyADayAndTheirFilesAreSweptAway() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            var ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            var bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            let image = try await upload(TestImages.png, ann, client)
            _ = try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": "Morning"], token: ann.accessToken)

            parley.clock.advance(by: 24 * 3600 - 1)
            ann = try await client.logIn("ann@example.com")   // access tokens last 15 minutes
            bo = try await client.logIn("bo@example.com")
            #expect((try await client.call(.get, "/v1/stories/feed", token: bo.accessToken)["users"] as? [JSON])?.count == 1)
            #expect(try await client.call(.get, "/v1/attachments/\(image)", token: bo.accessToken).status == .ok)
            parley.clock.advance(by: 1)
            #expect((try await client.call(.get, "/v1/stories/feed", token: bo.accessToken)["users"] as? [JSON])?.isEmpty == true)
            #expect((try await client.call(.get, "/v1/stories/mine", token: ann.accessToken)["stories"] as? [JSON])?.isEmpty == true)
            #expect(try await client.call(.get, "/v1/attachments/\(image)", token: bo.accessToken).status == .notFound)

            let files = parley.directory + "/files"
            func fileCount() -> Int { (FileManager.default.enumerator(atPath: files)?.allObjects as? [String] ?? []).filter { $0.count > 60 }.count }
            #expect(fileCount() == 1)
            #expect(try await parley.parts.stories.sweep() == 1)
            #expect(fileCount() == 0, "the expired story's file is gone")
            #expect(try await client.call(.get, "/v1/attachments/\(image)", token: ann.accessToken).status == .notFound)
        }
    }

    enum Who: String, CaseIterable, Sendable { case owner, friend, stranger, blockedByOwner, blockedTheOwner, unfriended }

    @Test(arguments: Who.allCases)
    func whoSeesAStory(who: Who) async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let owner = try await client.signUp("Olive", "olive@example.com", outbox: parley.outbox)
            let viewer = try await client.signUp("Vic", "vic@example.com", outbox: parley.outbox)
            if who != .stranger && who != .owner { try await client.befriend(owner, viewer) }
            let image = try await upload(TestImages.png, owner, client)
            let posted = try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": "Hi"], token: owner.accessToken)
            let story = try #require((posted["story"] as? JSON)?["id"] as? String)
            switch who {
            case .blockedByOwner: _ = try await client.call(.put, "/v1/blocks/\(viewer.id)", token: owner.accessToken)
            case .blockedTheOwner: _ = try await client.call(.put, "/v1/blocks/\(owner.id)", token: viewer.accessToken)
            case .unfriended: _ = try await client.call(.delete, "/v1/friends/\(viewer.id)", token: owner.accessToken)
            default: break
            }
            let me = who == .owner ? owner : viewer
            let sees = who == .owner || who == .friend
            let feed = try await client.call(.get, "/v1/stories/feed", token: me.accessToken)["users"] as? [JSON] ?? []
            #expect(feed.isEmpty == (who != .friend), "feed of \(who)")   // the owner's own stories are in /mine
            let view = try await client.call(.post, "/v1/stories/\(story)/views", token: me.accessToken)
            #expect(view.status == (sees ? .noContent : .notFound), "view by \(who)")
            let file = try await client.call(.get, "/v1/attachments/\(image)", token: me.accessToken)
            #expect(file.status == (sees ? .ok : .notFound), "attachment for \(who)")
            let count = ((try await client.call(.get, "/v1/stories/mine", token: owner.accessToken)["stories"] as? [JSON])?.first?["viewCount"] as? Int)
            #expect(count == (who == .friend ? 1 : 0), "the owner's own view is not counted")
            #expect(try await client.call(.get, "/v1/stories/\(story)/viewers", token: viewer.accessToken).status == .notFound, "only the owner sees viewers")
        }
    }

    @Test func viewsCountOncePerViewerAndTheFeedRemembersThem() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            try await client.befriend(ann, cy)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { boSocket.close() }
            let first = try await upload(TestImages.png, ann, client)
            let second = try await upload(TestImages.jpeg, ann, client)
            let older = try #require((try await client.call(.post, "/v1/stories", json: ["attachmentId": first, "title": "One"], token: ann.accessToken)["story"] as? JSON)?["id"] as? String)
            parley.clock.advance(by: 60)
            let newer = try #require((try await client.call(.post, "/v1/stories", json: ["attachmentId": second, "title": "Two"], token: ann.accessToken)["story"] as? JSON)?["id"] as? String)
            let announced = try await boSocket.next { $0.type == "story.new" }
            #expect(announced["ownerId"] as? String == ann.id)

            for _ in 0..<3 { _ = try await client.call(.post, "/v1/stories/\(older)/views", token: bo.accessToken) }
            parley.clock.advance(by: 5)
            _ = try await client.call(.post, "/v1/stories/\(older)/views", token: cy.accessToken)
            let feed = try await client.call(.get, "/v1/stories/feed", token: bo.accessToken)["users"] as? [JSON] ?? []
            let stories = feed.first?["stories"] as? [JSON] ?? []
            #expect((feed.first?["user"] as? JSON)?["id"] as? String == ann.id)
            #expect(stories.compactMap { $0["id"] as? String } == [newer, older], "newest first")
            #expect(stories.compactMap { $0["viewed"] as? Bool } == [false, true])
            #expect(stories.last?["viewCount"] as? Int == 2)
            let viewers = try await client.call(.get, "/v1/stories/\(older)/viewers", token: ann.accessToken)["viewers"] as? [JSON] ?? []
            #expect(viewers.compactMap { ($0["user"] as? JSON)?["name"] as? String } == ["Cy", "Bo"])

            #expect(try await client.call(.delete, "/v1/stories/\(older)", token: bo.accessToken).status == .notFound)
            #expect(try await client.call(.delete, "/v1/stories/\(older)", token: ann.accessToken).status == .noContent)
            #expect((try await client.call(.get, "/v1/stories/mine", token: ann.accessToken)["stories"] as? [JSON])?.count == 1)
        }
    }
}

extension StoriesTests {
    @Test("a user has at most limits.storiesPerDay stories live: past it 429 rate_limited until the oldest expires")
    func liveStoriesPerUserAreCapped() async throws {
        let parley = try await TestParley.start { $0.storiesPerDay = 3 }
        try await parley.test { client in
            var ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let image = try await upload(TestImages.png, ann, client)
            for title in ["One", "Two", "Three"] {
                #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": title], token: ann.accessToken).status == .created)
                parley.clock.advance(by: 60)
            }
            let refused = try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": "Four"], token: ann.accessToken)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited", "\(refused.text)")
            // The first went up 180 s ago and lives a day.
            #expect(refused.headers[.retryAfter] == "\(24 * 3600 - 180)")
            parley.clock.advance(by: 24 * 3600 - 180)
            ann = try await client.logIn("ann@example.com")   // access tokens last 15 minutes
            #expect(try await client.call(.post, "/v1/stories", json: ["attachmentId": image, "title": "Four"], token: ann.accessToken).status == .created,
                    "the first expired, so there is room again")
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct ProfileTests {
    @Test func nameAndStatusCanBeChanged() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let patched = try await client.call(.patch, "/v1/me", json: ["name": "  Ann Lee ", "status": "At work"], token: ann.accessToken)
            #expect(patched.status == .ok)
            #expect(patched.user["name"] as? String == "Ann Lee")
            #expect(patched.user["status"] as? String == "At work")
            let statusOnly = try await client.call(.patch, "/v1/me", json: ["status": ""], token: ann.accessToken)
            #expect(statusOnly.user["name"] as? String == "Ann Lee")
            #expect(statusOnly.user["status"] as? String == "")
            #expect(try await client.call(.patch, "/v1/me", json: ["name": ""], token: ann.accessToken).errorCode == "invalid_name")
            #expect(try await client.call(.patch, "/v1/me", json: ["status": String(repeating: "s", count: 141)], token: ann.accessToken).errorCode == "invalid_status")
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).user["name"] as? String == "Ann Lee")
        }
    }

    @Test(arguments: [("png", TestImages.png, "image/png"), ("jpeg", TestImages.jpeg, "image/jpeg"), ("heic", TestImages.heic, "image/heic")])
    func avatarsAreRecognisedByTheirBytes(kind: String, bytes: [UInt8], contentType: String) async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            // The declared type is ignored: the bytes decide.
            let reply = try await client.call(.put, "/v1/me/avatar", raw: bytes, token: ann.accessToken, headers: [.contentType: "text/plain"])
            #expect(reply.status == .ok, "\(reply.text)")
            let url = try #require(reply.user["avatarUrl"] as? String)
            let image = try await client.call(.get, String(url.dropFirst("http://parley.test".count)), token: ann.accessToken)
            #expect(image.bytes == bytes)
            #expect(image.headers[.contentType] == contentType)
        }
    }

    @Test func avatarsThatAreNotImagesOrTooLargeAreRefused() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let text = try await client.call(.put, "/v1/me/avatar", raw: Array("GIF? no, text".utf8), token: ann.accessToken, headers: [.contentType: "image/png"])
            #expect(text.status == .unsupportedMediaType)
            #expect(text.errorCode == "unsupported_media_type")
            let huge = try await client.call(.put, "/v1/me/avatar", raw: TestImages.png + [UInt8](repeating: 0, count: 5 * 1024 * 1024), token: ann.accessToken)
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorCode == "payload_too_large")
            #expect(try await client.call(.put, "/v1/me/avatar", token: ann.accessToken).errorCode == "missing_body")
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).user["avatarUrl"] == nil)
        }
    }

    @Test func replacingAnAvatarRemovesTheOldFileUnlessSomeoneElseShowsIt() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let first = try #require(try await client.call(.put, "/v1/me/avatar", raw: TestImages.png, token: ann.accessToken).user["avatarUrl"] as? String)
            _ = try await client.call(.put, "/v1/me/avatar", raw: TestImages.png, token: bo.accessToken)
            _ = try await client.call(.put, "/v1/me/avatar", raw: TestImages.jpeg, token: ann.accessToken)
            let path = String(first.dropFirst("http://parley.test".count))
            #expect(try await client.call(.get, path, token: ann.accessToken).status == .ok, "Bo still shows it")
            _ = try await client.call(.put, "/v1/me/avatar", raw: TestImages.heic, token: bo.accessToken)
            #expect(try await client.call(.get, path, token: ann.accessToken).status == .notFound)
        }
    }

    @Test func deletingTheAccountNeedsThePasswordAndRemovesIt() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let wrong = try await client.call(.delete, "/v1/me", json: ["password": "not it"], token: ann.accessToken)
            #expect(wrong.status == .forbidden)
            #expect(wrong.errorCode == "wrong_password")
            #expect(try await client.call(.delete, "/v1/me", json: ["password": "correct horse"], token: ann.accessToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/me", token: ann.accessToken).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/users/\(ann.id)", token: bo.accessToken).status == .notFound)
            let login = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse"])
            #expect(login.errorCode == "invalid_credentials")
            #expect(try await client.register("Ann again", "ann@example.com").status == .created, "the address is free again")
        }
    }
}

@Suite struct UserSearchTests {
    @Test func findsVerifiedPeopleByPartOfTheirNameOrTheirWholeAddress() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann Lee", "ann@example.com", outbox: parley.outbox)
            _ = try await client.signUp("Annika Berg", "annika@mail.test", outbox: parley.outbox)
            _ = try await client.signUp("Bo Chen", "bo.chen@example.com", outbox: parley.outbox)
            _ = try await client.register("Anna Unverified", "anna@example.com")

            func names(_ query: String) async throws -> [String] {
                let reply = try await client.call(.get, "/v1/users?query=\(query)", token: ann.accessToken)
                #expect(reply.status == .ok, "\(reply.text)")
                return (reply["users"] as? [[String: any Sendable]] ?? []).compactMap { $0["name"] as? String }
            }
            #expect(try await names("ann") == ["Annika Berg"], "not oneself, not the unverified")
            #expect(try await names("CHEN") == ["Bo Chen"])
            #expect(try await names("example.com") == [], "no part of an address matches")
            #expect(try await names("bo.chen") == [])
            #expect(try await names("mail.test") == [])
            #expect(try await names("Annika@Mail.test") == ["Annika Berg"], "a whole address does, in any case")
            #expect(try await names("%25%25") == [], "LIKE wildcards are literal")
            #expect(try await names("Bo+Ch") == ["Bo Chen"], "a form-encoded space (URLSearchParams)")
            #expect(try await names("Bo%20Ch") == ["Bo Chen"])
            #expect(try await names("Bo%2BCh") == [], "an encoded plus is a plus")
            let users = try await client.call(.get, "/v1/users?query=bo", token: ann.accessToken)["users"] as? [[String: any Sendable]]
            #expect(users?.first?["email"] == nil, "others' addresses are not shown")
            #expect(users?.first?["relationship"] as? String == "none")

            let short = try await client.call(.get, "/v1/users?query=a", token: ann.accessToken)
            #expect(short.status == .unprocessableContent)
            #expect(short.errorCode == "query_too_short")
            #expect(try await client.call(.get, "/v1/users?query=ann", token: nil).status == .unauthorized)
        }
    }

    @Test func pagesFollowTheCursor() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let me = try await client.signUp("Searcher", "me@example.com", outbox: parley.outbox)
            for name in ["Kim A", "Kim B", "Kim C", "Kim D", "Kim E"] {
                _ = try await client.signUp(name, "\(name.replacingOccurrences(of: " ", with: "").lowercased())@example.com", outbox: parley.outbox)
            }
            var seen: [String] = []
            var cursor: String?
            for _ in 0..<5 {
                let suffix = cursor.map { "&cursor=\($0)" } ?? ""
                let page = try await client.call(.get, "/v1/users?query=kim&limit=2\(suffix)", token: me.accessToken)
                seen += (page["users"] as? [[String: any Sendable]] ?? []).compactMap { $0["name"] as? String }
                cursor = page["nextCursor"] as? String
                if cursor == nil { break }
            }
            #expect(seen == ["Kim A", "Kim B", "Kim C", "Kim D", "Kim E"])
            #expect(try await client.call(.get, "/v1/users?query=kim&cursor=notacursor", token: me.accessToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/users?query=kim&limit=0", token: me.accessToken).errorCode == "invalid_field")
            #expect(try await client.call(.get, "/v1/users?query=kim&limit=x", token: me.accessToken).errorCode == "invalid_field")
        }
    }

    /// Two letters (what a search box sends first): names, or words in them, that start with
    /// them — a prefix, not any part; pages across the cursor in name order.
    @Test func twoLettersFindWhatStartsWithThem() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let me = try await client.signUp("Searcher", "me@example.com", outbox: parley.outbox)
            for name in ["Joanna Kim", "Anton Ek", "Bo Anders", "Dan Li", "Ann Lee", "Lian Anker"] {
                _ = try await client.signUp(name, "\(name.replacingOccurrences(of: " ", with: "").lowercased())@example.com", outbox: parley.outbox)
            }
            var seen: [String] = []
            var cursor: String?
            for _ in 0..<6 {
                let suffix = cursor.map { "&cursor=\($0)" } ?? ""
                let page = try await client.call(.get, "/v1/users?query=An&limit=1\(suffix)", token: me.accessToken)
                #expect(page.status == .ok, "\(page.text)")
                seen += (page["users"] as? [[String: any Sendable]] ?? []).compactMap { $0["name"] as? String }
                cursor = page["nextCursor"] as? String
                if cursor == nil { break }
            }
            #expect(seen == ["Ann Lee", "Anton Ek", "Bo Anders", "Lian Anker"], "not Joanna Kim, Dan Li: an inside a word")
            let all = try await client.call(.get, "/v1/users?query=an", token: me.accessToken)
            #expect(all["nextCursor"] as? String == nil)
            #expect((all["users"] as? [[String: any Sendable]])?.count == 4)
        }
    }

    @Test func oneUserByID() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let reply = try await client.call(.get, "/v1/users/\(bo.id)", token: ann.accessToken)
            #expect(reply.user["name"] as? String == "Bo")
            #expect(reply.user["email"] == nil)
            #expect(try await client.call(.get, "/v1/users/\(ann.id)", token: ann.accessToken).user["email"] as? String == "ann@example.com")
            let missing = try await client.call(.get, "/v1/users/no-such-id", token: ann.accessToken)
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "user_not_found")
        }
    }
}

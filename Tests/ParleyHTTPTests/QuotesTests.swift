import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The Quotes app (seed 003): a quote is said by one person and heard by others, and only those
/// who were there — and whoever added it — ever see it, in the feed, by id, on a profile or in search.
@Suite struct QuotesTests {
    typealias JSON = [String: any Sendable]

    func add(_ text: String, said: (String, String), heard: [(String, String)], by user: TestUser,
             _ client: some TestClientProtocol) async throws -> Reply {
        try await client.call(.post, "/v1/quotes", json: [
            "text": text,
            "saidBy": ["phoneNumber": said.0, "name": said.1],
            "heardBy": heard.map { ["phoneNumber": $0.0, "name": $0.1] as JSON },
        ], token: user.accessToken)
    }

    func quotes(_ path: String, _ user: TestUser, _ client: some TestClientProtocol) async throws -> [JSON] {
        let reply = try await client.call(.get, path, token: user.accessToken)
        try #require(reply.status == .ok, "\(path): \(reply.text)")
        return reply["quotes"] as? [JSON] ?? []
    }

    func search(_ query: String, _ user: TestUser, _ client: some TestClientProtocol) async throws -> [String] {
        let path = "/v1/quotes/search?query=" + query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try await quotes(path, user, client).compactMap { $0["text"] as? String }
    }

    /// Search reads a viewer's own quotes up to `scanLimit` of them, and the trigram index past
    /// it: both plans, the same answers.
    @Test(arguments: [0, 2000])
    func onlyTheSayerTheHearersAndTheAdderSeeAQuoteAndFindItBySearch(scanLimit: Int) async throws {
        let parley = try await TestParley.start { $0.quoteSearchScanLimit = scanLimit }
        try await parley.test { client in
            let ann = try await client.signUpByPhone("+14155550101", "Ann", "Lee", parley: parley)
            let bo = try await client.signUpByPhone("+14155550102", "Bo", "Park", parley: parley)
            let cy = try await client.signUpByPhone("+14155550103", "Cy", "Berg", parley: parley)
            let dee = try await client.signUpByPhone("+14155550104", "Dee", "Ray", parley: parley)

            // Ann was there: Bo said it, Cy and Ann heard it.
            let added = try await add("The penguin stole my sandwich", said: ("+1 415 555 0102", "Bobby"),
                                      heard: [("+14155550103", "Cyrus"), ("+14155550101", "Me")], by: ann, client)
            #expect(added.status == .created, "\(added.text)")
            let quote = try #require(added["quote"] as? JSON)
            let id = try #require(quote["id"] as? String)
            let sayer = try #require(quote["saidBy"] as? JSON)
            #expect(sayer["phoneNumber"] as? String == "+14155550102")
            #expect(sayer["userId"] as? String == bo.id)
            #expect(sayer["name"] as? String == "Bo Park")   // joined: the name he chose, not Ann's "Bobby"
            #expect((quote["heardBy"] as? [JSON])?.compactMap { $0["name"] as? String } == ["Cy Berg", "Ann Lee"])
            // A quote Dee was at, and nobody else here.
            #expect(try await add("Volcanoes are just mountains with feelings", said: ("+14155550104", "Me"),
                                  heard: [("+14155550199", "Eve")], by: dee, client).status == .created)

            for person in [ann, bo, cy] {
                #expect(try await quotes("/v1/quotes", person, client).compactMap { $0["id"] as? String } == [id])
                #expect(try await client.call(.get, "/v1/quotes/\(id)", token: person.accessToken).status == .ok)
                // As the app sends it, a character at a time.
                for typed in ["p", "pe", "pen", "peng", "penguin st", "SANDWICH", "stole my"] {
                    #expect(try await search(typed, person, client) == ["The penguin stole my sandwich"], "\(typed)")
                }
                #expect(try await search("volcano", person, client).isEmpty)
                #expect(try await search("feelings", person, client).isEmpty)
            }
            #expect(try await quotes("/v1/quotes", dee, client).compactMap { $0["text"] as? String } == ["Volcanoes are just mountains with feelings"])
            let hidden = try await client.call(.get, "/v1/quotes/\(id)", token: dee.accessToken)
            #expect(hidden.status == .notFound)
            #expect(hidden.errorCode == "quote_not_found")
            for typed in ["p", "pe", "pen", "penguin", "sandwich", "the"] {
                #expect(try await search(typed, dee, client).isEmpty, "\(typed)")
            }
            #expect(try await quotes("/v1/quotes?saidBy=%2B14155550102", dee, client).isEmpty)
            #expect(try await quotes("/v1/quotes?saidBy=\(bo.id)", dee, client).isEmpty)

            // "Quotes this person said", as far as I may see; by number or by account.
            #expect(try await quotes("/v1/quotes?saidBy=%2B14155550102", cy, client).count == 1)
            #expect(try await quotes("/v1/quotes?saidBy=\(bo.id)", cy, client).count == 1)
            #expect(try await quotes("/v1/quotes?saidBy=%2B14155550103", cy, client).isEmpty)

            // The profile's two tabs.
            #expect(try await quotes("/v1/quotes/said", bo, client).count == 1)
            #expect(try await quotes("/v1/quotes/heard", bo, client).isEmpty)
            #expect(try await quotes("/v1/quotes/heard", cy, client).count == 1)
            #expect(try await quotes("/v1/quotes/said", cy, client).isEmpty)
            #expect(try await quotes("/v1/quotes/heard", ann, client).count == 1)
            #expect(try await quotes("/v1/quotes/said", dee, client).count == 1)
        }
    }

    @Test func aNumberThatJoinsLaterShowsTheNameItChoseWhereEachHearerSawTheirOwn() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUpByPhone("+14155550101", "Ann", "Lee", parley: parley)
            let bo = try await client.signUpByPhone("+14155550102", "Bo", "Park", parley: parley)
            let cy = try await client.signUpByPhone("+14155550103", "Cy", "Berg", parley: parley)
            // Bo has the newcomer in his address book under another name; Cy does not have them at all.
            let saved = try await client.call(.put, "/v1/quotes/contacts", json: [
                "contacts": [["phoneNumber": "+1 415 555 0199", "name": "Zed from work"]],
            ], token: bo.accessToken)
            #expect(saved.status == .ok, "\(saved.text)")

            let added = try await add("I have never seen a dinosaur on a bicycle", said: ("+14155550199", "Zach"),
                                      heard: [("+14155550102", "Bo"), ("+14155550103", "Cy")], by: ann, client)
            let id = try #require((added["quote"] as? JSON)?["id"] as? String)
            func sayer(as user: TestUser) async throws -> JSON {
                let reply = try await client.call(.get, "/v1/quotes/\(id)", token: user.accessToken)
                return try #require((reply["quote"] as? JSON)?["saidBy"] as? JSON, "\(reply.text)")
            }
            #expect(try await sayer(as: ann)["name"] as? String == "Zach")
            #expect(try await sayer(as: bo)["name"] as? String == "Zed from work")
            #expect(try await sayer(as: cy)["name"] as? String == "Zach")   // the adder's name, having none of their own
            #expect(try await sayer(as: ann)["userId"] == nil)

            let zed = try await client.signUpByPhone("+14155550199", "Zachary", "Stone", parley: parley)
            for person in [ann, bo, cy, zed] {
                let shown = try await sayer(as: person)
                #expect(shown["name"] as? String == "Zachary Stone")
                #expect(shown["userId"] as? String == zed.id)
            }
            // And it is theirs now: in their feed, their Said By tab and their search.
            #expect(try await quotes("/v1/quotes", zed, client).compactMap { $0["id"] as? String } == [id])
            #expect(try await quotes("/v1/quotes/said", zed, client).count == 1)
            #expect(try await search("dinosaur", zed, client).count == 1)
        }
    }

    @Test func theFeedIsNewestFirstAndPagesByCursor() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUpByPhone("+14155550101", "Ann", "Lee", parley: parley)
            for n in 1...5 {
                #expect(try await add("Quote number \(n)", said: ("+14155550102", "Bo"), heard: [("+14155550101", "Me")], by: ann, client).status == .created)
            }
            let first = try await client.call(.get, "/v1/quotes?limit=2", token: ann.accessToken)
            #expect((first["quotes"] as? [JSON])?.compactMap { $0["text"] as? String } == ["Quote number 5", "Quote number 4"])
            let cursor = try #require(first["nextCursor"] as? String)
            let second = try await client.call(.get, "/v1/quotes?limit=2&cursor=\(cursor)", token: ann.accessToken)
            #expect((second["quotes"] as? [JSON])?.compactMap { $0["text"] as? String } == ["Quote number 3", "Quote number 2"])
            let third = try await client.call(.get, "/v1/quotes?limit=2&cursor=\(second["nextCursor"] as! String)", token: ann.accessToken)
            #expect((third["quotes"] as? [JSON])?.compactMap { $0["text"] as? String } == ["Quote number 1"])
            #expect(third["nextCursor"] == nil)
            // Search pages the same way.
            let found = try await client.call(.get, "/v1/quotes/search?query=number&limit=3", token: ann.accessToken)
            #expect((found["quotes"] as? [JSON])?.count == 3)
            let rest = try await client.call(.get, "/v1/quotes/search?query=number&limit=3&cursor=\(found["nextCursor"] as! String)", token: ann.accessToken)
            #expect((rest["quotes"] as? [JSON])?.compactMap { $0["text"] as? String } == ["Quote number 2", "Quote number 1"])

            for path in ["/v1/quotes?cursor=yesterday", "/v1/quotes/said?cursor=-1", "/v1/quotes/search?cursor=%C2%84",
                         "/v1/quotes/search?query=number&cursor=99999999999999999999"] {
                let bad = try await client.call(.get, path, token: ann.accessToken)
                #expect(bad.status == .badRequest, "\(path)")
                #expect(bad.errorCode == "invalid_cursor", "\(path)")
            }
        }
    }

    @Test func aQuoteKeepsToItsRules() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUpByPhone("+447700900101", "Ann", "Lee", parley: parley)
            let limits = try await client.call(.get, "/v1/quotes/limits", token: ann.accessToken)
            #expect(limits["maxLength"] as? Int == 280)
            let said = ("+447700900102", "Bo"), heard = [("+447700900103", "Cy")]
            #expect(try await add(String(repeating: "a", count: 280), said: said, heard: heard, by: ann, client).status == .created)
            #expect(try await add(String(repeating: "a", count: 281), said: said, heard: heard, by: ann, client).errorCode == "invalid_text")
            #expect(try await add("   ", said: said, heard: heard, by: ann, client).errorCode == "invalid_text")
            #expect(try await add("Hi", said: said, heard: [], by: ann, client).errorCode == "invalid_hearers")
            #expect(try await add("Hi", said: said, heard: [said], by: ann, client).errorCode == "invalid_hearers")
            #expect(try await add("Hi", said: said, heard: heard + heard, by: ann, client).errorCode == "invalid_hearers")
            #expect(try await add("Hi", said: ("not a number", "Bo"), heard: heard, by: ann, client).errorCode == "invalid_phone_number")
            #expect(try await add("Hi", said: ("+447700900102", " "), heard: heard, by: ann, client).errorCode == "invalid_name")
            let malformed = try await client.call(.post, "/v1/quotes", json: ["text": "Hi"], token: ann.accessToken)
            #expect(malformed.status == .badRequest)
            #expect(try await client.call(.get, "/v1/quotes", token: nil).status == .unauthorized)

            // A whole address book at once, up to the count (a body larger than other JSON bodies).
            let longName = String(repeating: "n", count: 64)
            func book(_ count: Int) -> [String: any Sendable] {
                ["contacts": (0..<count).map { ["phoneNumber": "+4477009\(String(format: "%05d", $0))", "name": longName] as JSON }]
            }
            let whole = try await client.call(.put, "/v1/quotes/contacts", json: book(1000), token: ann.accessToken)
            #expect(whole.status == .ok, "\(whole.text.prefix(200))")
            #expect(whole["saved"] as? Int == 1000)
            let tooMany = try await client.call(.put, "/v1/quotes/contacts", json: book(1001), token: ann.accessToken)
            #expect(tooMany.status == .unprocessableContent)
            #expect(tooMany.errorCode == "too_many_contacts")

            // A number from the address book written the national way is read in the adder's country.
            let national = try await add("Mind the gap", said: ("07700 900102", "Bo"), heard: [("07700 900103", "Cy")], by: ann, client)
            #expect(((national["quote"] as? JSON)?["saidBy"] as? JSON)?["phoneNumber"] as? String == "+447700900102")
        }
    }
}

extension QuotesTests {
    @Test("an address book holds at most 10 000 numbers, and a user adds at most 100 quotes an hour")
    func aUserCannotGrowQuotesWithoutEnd() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUpByPhone("+447700900101", "Ann", "Lee", parley: parley)
            func book(from start: Int, count: Int) -> [String: any Sendable] {
                ["contacts": (start..<start + count).map { ["phoneNumber": "+4477009\(String(format: "%05d", $0))", "name": "N\($0)"] as JSON }]
            }
            for call in 0..<10 {
                let saved = try await client.call(.put, "/v1/quotes/contacts", json: book(from: call * 1000, count: 1000), token: ann.accessToken)
                #expect(saved.status == .ok, "\(saved.text.prefix(200))")
            }
            let full = try await client.call(.put, "/v1/quotes/contacts", json: book(from: 10_000, count: 1), token: ann.accessToken)
            #expect(full.status == .unprocessableContent && full.errorCode == "too_many_contacts", "\(full.text)")
            let renamed = try await client.call(.put, "/v1/quotes/contacts", json: book(from: 9_000, count: 1000), token: ann.accessToken)
            #expect(renamed.status == .ok, "numbers the book holds only change their names")

            let said = ("+447700900102", "Bo"), heard = [("+447700900103", "Cy")]
            for n in 0..<100 { #expect(try await add("Line \(n)", said: said, heard: heard, by: ann, client).status == .created) }
            let limited = try await add("One more", said: said, heard: heard, by: ann, client)
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited" && limited.headers[.retryAfter] != nil)
            parley.clock.advance(by: 3601)
            let refreshed = try await client.call(.post, "/v1/auth/refresh", json: ["refreshToken": ann.refreshToken])
            let later = TestUser(id: ann.id, email: ann.email, password: ann.password,
                                 accessToken: try #require(refreshed["accessToken"] as? String, "\(refreshed.text)"),
                                 refreshToken: try #require(refreshed["refreshToken"] as? String))
            #expect(try await add("An hour later", said: said, heard: heard, by: later, client).status == .created)
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct FriendsTests {
    typealias JSON = [String: any Sendable]

    @Test func listsShowFriendsAndRequestsBothWays() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let sent = try await client.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            #expect(sent.status == .created)
            let request = try #require(sent["request"] as? JSON)
            #expect((request["to"] as? JSON)?["relationship"] as? String == "requestSent")
            #expect((request["createdAt"] as? String)?.hasSuffix("Z") == true)
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: cy.accessToken)

            let outgoing = try await client.call(.get, "/v1/friends/requests?direction=outgoing", token: ann.accessToken)["requests"] as? [JSON]
            #expect(outgoing?.compactMap { ($0["to"] as? JSON)?["name"] as? String } == ["Bo"])
            let incoming = try await client.call(.get, "/v1/friends/requests", token: ann.accessToken)["requests"] as? [JSON]
            #expect(incoming?.compactMap { ($0["from"] as? JSON)?["name"] as? String } == ["Cy"])
            #expect(try await client.call(.get, "/v1/friends/requests?direction=sideways", token: ann.accessToken).errorCode == "invalid_field")

            let bosRequest = try #require(request["id"] as? String)
            let accepted = try await client.call(.post, "/v1/friends/requests/\(bosRequest)/accept", token: bo.accessToken)
            #expect(accepted.status == .ok)
            #expect((accepted["friend"] as? JSON)?["name"] as? String == "Ann")
            let cysRequest = try #require(incoming?.first?["id"] as? String)
            #expect(try await client.call(.post, "/v1/friends/requests/\(cysRequest)/accept", token: ann.accessToken).status == .ok)

            let annsFriends = try await client.call(.get, "/v1/friends", token: ann.accessToken)["friends"] as? [JSON]
            #expect(annsFriends?.compactMap { $0["name"] as? String } == ["Bo", "Cy"])
            #expect(annsFriends?.allSatisfy { $0["relationship"] as? String == "friend" && $0["email"] == nil } == true)
            let left = try await client.call(.get, "/v1/friends/requests", token: ann.accessToken)["requests"] as? [JSON]
            #expect(left?.isEmpty == true, "accepted requests are gone")

            #expect(try await client.call(.delete, "/v1/friends/\(bo.id)", token: ann.accessToken).status == .noContent)
            let bosFriends = try await client.call(.get, "/v1/friends", token: bo.accessToken)["friends"] as? [JSON]
            #expect(bosFriends?.isEmpty == true, "unfriending ends it for both")
        }
    }

    @Test func requestsNeedARealOtherPerson() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            _ = try await client.register("Unverified", "un@example.com")
            let yourself = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: ann.accessToken)
            #expect(yourself.status == .unprocessableContent)
            #expect(yourself.errorCode == "cannot_befriend_yourself")
            #expect(try await client.call(.post, "/v1/friends/requests", json: ["userId": "nobody"], token: ann.accessToken).errorCode == "user_not_found")
            #expect(try await client.call(.post, "/v1/friends/requests", json: ["userId": 42], token: ann.accessToken).errorCode == "invalid_field")
            #expect(try await client.call(.put, "/v1/blocks/\(ann.id)", token: ann.accessToken).errorCode == "cannot_block_yourself")
            #expect(try await client.call(.put, "/v1/blocks/nobody", token: ann.accessToken).errorCode == "user_not_found")
            #expect(try await client.call(.get, "/v1/friends").status == .unauthorized)
        }
    }

    @Test func aThirdPersonCannotTouchSomeoneElsesRequest() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let eve = try await client.signUp("Eve", "eve@example.com", outbox: parley.outbox)
            let sent = try await client.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            let id = try #require((sent["request"] as? JSON)?["id"] as? String)
            for (method, path) in [(HTTPRequest.Method.post, "/v1/friends/requests/\(id)/accept"),
                                   (.post, "/v1/friends/requests/\(id)/decline"), (.delete, "/v1/friends/requests/\(id)")] {
                let reply = try await client.call(method, path, token: eve.accessToken)
                #expect(reply.status == .notFound)
                #expect(reply.errorCode == "request_not_found")
            }
            let still = try await client.call(.get, "/v1/friends/requests", token: bo.accessToken)["requests"] as? [JSON]
            #expect(still?.count == 1)
        }
    }

    @Test func deletingAnAccountEndsItsFriendships() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": bo.id], token: ann.accessToken)
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": ann.id], token: bo.accessToken)
            #expect((try await client.call(.get, "/v1/friends", token: bo.accessToken)["friends"] as? [JSON])?.count == 1)
            #expect(try await client.call(.delete, "/v1/me", json: ["password": "correct horse"], token: ann.accessToken).status == .noContent)
            #expect((try await client.call(.get, "/v1/friends", token: bo.accessToken)["friends"] as? [JSON])?.isEmpty == true)
        }
    }
}

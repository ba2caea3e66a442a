import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyCore
import ParleyFriends
import Testing

/// Every starting state between A and B × every action A can take, each with the answer A gets
/// and the state both see afterwards. A view is A's `relationship` to B (and B's to A), or
/// `hidden` when the other has blocked the viewer and is invisible to them.
@Suite struct FriendsTableTests {
    enum State: String, CaseIterable, Sendable {
        case strangers, requestedByA, requestedByB, friends, blockedByA, blockedByB

        /// (A's view of B, B's view of A)
        var views: Views {
            switch self {
            case .strangers: Views("none", "none")
            case .requestedByA: Views("requestSent", "requestReceived")
            case .requestedByB: Views("requestReceived", "requestSent")
            case .friends: Views("friend", "friend")
            case .blockedByA: Views("blocked", "hidden")
            case .blockedByB: Views("hidden", "blocked")
            }
        }
    }

    struct Views: Equatable, CustomStringConvertible, Sendable {
        let a: String, b: String
        init(_ a: String, _ b: String) { self.a = a; self.b = b }
        var description: String { "A sees \(a), B sees \(b)" }
    }

    enum Action: String, CaseIterable, Sendable {
        case request, cancel, accept, decline, unfriend, block, unblock, search, reach
    }

    /// What A is answered (status and error code) and the state afterwards.
    struct Expected: Sendable {
        let status: Int
        let code: String?
        let after: State?     // nil: the views are checked against `views`
        var views: Views? = nil
        init(_ status: Int, _ code: String? = nil, then after: State?, views: Views? = nil) {
            self.status = status
            self.code = code
            self.after = after
            self.views = views
        }
    }

    static func expected(_ state: State, _ action: Action) -> Expected {
        switch (action, state) {
        case (.request, .strangers): Expected(201, then: .requestedByA)
        case (.request, .requestedByA): Expected(409, "request_already_sent", then: state)
        case (.request, .requestedByB): Expected(200, then: .friends)
        case (.request, .friends): Expected(409, "already_friends", then: state)
        case (.request, .blockedByA), (.request, .blockedByB): Expected(403, "blocked", then: state)

        case (.cancel, .requestedByA): Expected(204, then: .strangers)
        case (.cancel, .requestedByB): Expected(403, "not_sender", then: state)
        case (.cancel, _): Expected(404, "request_not_found", then: state)

        case (.accept, .requestedByB): Expected(200, then: .friends)
        case (.accept, .requestedByA): Expected(403, "not_receiver", then: state)
        case (.accept, _): Expected(404, "request_not_found", then: state)

        case (.decline, .requestedByB): Expected(204, then: .strangers)
        case (.decline, .requestedByA): Expected(403, "not_receiver", then: state)
        case (.decline, _): Expected(404, "request_not_found", then: state)

        case (.unfriend, .friends): Expected(204, then: .strangers)
        case (.unfriend, _): Expected(404, "not_friends", then: state)

        // Blocking ends friendship and requests. Blocking back leaves each blocked by the other,
        // and so each hidden from the other.
        case (.block, .blockedByB): Expected(204, then: nil, views: Views("hidden", "hidden"))
        case (.block, _): Expected(204, then: .blockedByA)

        case (.unblock, .blockedByA): Expected(204, then: .strangers)
        case (.unblock, _): Expected(204, then: state)

        case (.search, _), (.reach, _): Expected(200, then: state)
        }
    }

    @Test(arguments: State.allCases, Action.allCases)
    func transition(from state: State, action: Action) async throws {
        let parley = try await TestParley.start()
        let friends = parley.parts.friends
        try await parley.test { client in
            let a = try await client.signUp("Alice Archer", "alice@example.com", outbox: parley.outbox)
            let b = try await client.signUp("Bob Brenner", "bob@example.com", outbox: parley.outbox)
            try await Self.arrange(state, a, b, client)
            let expected = Self.expected(state, action)

            switch action {
            case .search:
                let found = try await client.call(.get, "/v1/users?query=brenner", token: a.accessToken)
                #expect(found.status == .ok)
                let users = found["users"] as? [[String: any Sendable]] ?? []
                if state == .blockedByB {
                    #expect(users.isEmpty, "a blocker is not found by the one they blocked")
                } else {
                    #expect(users.count == 1)
                    #expect(users.first?["relationship"] as? String == state.views.a)
                }
            case .reach:
                let there = try await friends.reach(from: UserID(rawValue: a.id), to: UserID(rawValue: b.id))
                let back = try await friends.reach(from: UserID(rawValue: b.id), to: UserID(rawValue: a.id))
                let wanted: Reach = switch state {
                case .friends: .friends
                case .blockedByA, .blockedByB: .blocked
                default: .notFriends
                }
                #expect(there == wanted)
                #expect(back == wanted)
            default:
                let reply = try await Self.perform(action, a, b, client)
                #expect(reply.status.code == expected.status, "\(action) in \(state): \(reply.text)")
                #expect(reply.errorCode == expected.code, "\(action) in \(state)")
                if action == .request, expected.status == 200 {
                    #expect((reply["friend"] as? [String: any Sendable])?["relationship"] as? String == "friend")
                }
                if action == .request, expected.status == 201 {
                    let request = reply["request"] as? [String: any Sendable]
                    #expect((request?["from"] as? [String: any Sendable])?["id"] as? String == a.id)
                    #expect((request?["to"] as? [String: any Sendable])?["id"] as? String == b.id)
                }
            }
            let after = try await Self.observe(a, b, client)
            #expect(after == (expected.views ?? (expected.after ?? state).views), "\(action) in \(state)")
            if action == .block {
                let blocks = try await client.call(.get, "/v1/blocks", token: a.accessToken)["blocks"] as? [[String: any Sendable]]
                #expect(blocks?.compactMap { ($0["user"] as? [String: any Sendable])?["id"] as? String } == [b.id],
                        "the blocker still sees whom they blocked")
            }
        }
    }

    /// Brings A and B into `state` through the API.
    static func arrange(_ state: State, _ a: TestUser, _ b: TestUser, _ client: some TestClientProtocol) async throws {
        switch state {
        case .strangers: break
        case .requestedByA: _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": b.id], token: a.accessToken)
        case .requestedByB: _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": a.id], token: b.accessToken)
        case .friends:
            _ = try await client.call(.post, "/v1/friends/requests", json: ["userId": b.id], token: a.accessToken)
            let request = try await pendingRequestID(between: b, client)
            _ = try await client.call(.post, "/v1/friends/requests/\(request ?? "-")/accept", token: b.accessToken)
        case .blockedByA: _ = try await client.call(.put, "/v1/blocks/\(b.id)", token: a.accessToken)
        case .blockedByB: _ = try await client.call(.put, "/v1/blocks/\(a.id)", token: b.accessToken)
        }
        try #require(try await observe(a, b, client) == state.views, "arranging \(state)")
    }

    static func perform(_ action: Action, _ a: TestUser, _ b: TestUser, _ client: some TestClientProtocol) async throws -> Reply {
        let request = try await pendingRequestID(between: a, client) ?? "no-such-request"
        switch action {
        case .request: return try await client.call(.post, "/v1/friends/requests", json: ["userId": b.id], token: a.accessToken)
        case .cancel: return try await client.call(.delete, "/v1/friends/requests/\(request)", token: a.accessToken)
        case .accept: return try await client.call(.post, "/v1/friends/requests/\(request)/accept", token: a.accessToken)
        case .decline: return try await client.call(.post, "/v1/friends/requests/\(request)/decline", token: a.accessToken)
        case .unfriend: return try await client.call(.delete, "/v1/friends/\(b.id)", token: a.accessToken)
        case .block: return try await client.call(.put, "/v1/blocks/\(b.id)", token: a.accessToken)
        case .unblock: return try await client.call(.delete, "/v1/blocks/\(b.id)", token: a.accessToken)
        case .search, .reach: fatalError("not an HTTP action")
        }
    }

    /// The id of a request `user` sent or received, if any.
    static func pendingRequestID(between user: TestUser, _ client: some TestClientProtocol) async throws -> String? {
        for direction in ["incoming", "outgoing"] {
            let reply = try await client.call(.get, "/v1/friends/requests?direction=\(direction)", token: user.accessToken)
            if let first = (reply["requests"] as? [[String: any Sendable]])?.first { return first["id"] as? String }
        }
        return nil
    }

    static func observe(_ a: TestUser, _ b: TestUser, _ client: some TestClientProtocol) async throws -> Views {
        func view(_ viewer: TestUser, _ other: TestUser) async throws -> String {
            let reply = try await client.call(.get, "/v1/users/\(other.id)", token: viewer.accessToken)
            if reply.status == .notFound { return "hidden" }
            return reply.user["relationship"] as? String ?? "?"
        }
        return Views(try await view(a, b), try await view(b, a))
    }
}

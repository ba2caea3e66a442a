import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Where docs/openapi.yaml and the server once disagreed, as the API fuzzer found it: the server
/// now answers what the document says.
@Suite struct ContractTests {
    /// A 405's `Allow` lists what that path takes, not what a `{id}` route beside it takes:
    /// `DELETE /v1/stories/{id}` does not make `DELETE /v1/stories/feed` a route.
    @Test(arguments: [
        ("/v1/stories/feed", "GET"), ("/v1/stories/mine", "GET"), ("/v1/friends/requests", "GET, POST"),
        ("/v1/stories/some-id", "DELETE"), ("/v1/friends/requests/some-id", "DELETE"),
        ("/v1/calls/echo", "POST"), ("/v1/dialogs/some-id/members/me", "DELETE"),
    ])
    func allowListsExactlyTheMethodsOfThatPath(path: String, allow: String) async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            for method in [HTTPRequest.Method.options, .patch, .put] where !allow.contains(method.rawValue) {
                let reply = try await client.call(method, path, token: ann.accessToken)
                #expect(reply.status == .methodNotAllowed, "\(method) \(path): \(reply.text)")
                #expect(reply.errorCode == "method_not_allowed")
                #expect(reply.headers[.allow] == allow, "\(method) \(path)")
            }
            // Every method `Allow` names is served there: none of them is a 404 or a 405.
            for method in allow.split(separator: ",").map({ HTTPRequest.Method(rawValue: $0.trimmingCharacters(in: .whitespaces))! }) {
                let reply = try await client.call(method, path, json: [:], token: ann.accessToken)
                #expect(reply.status != .methodNotAllowed && reply.errorCode != "not_found", "\(method) \(path): \(reply.text)")
            }
        }
    }

    @Test func noAddressAtAllIsAMalformedRequestNotAnUnknownAccount() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            for path in ["/v1/auth/password-reset", "/v1/auth/resend-verification"] {
                for email in ["", "   ", "no address", "ann@"] {
                    let reply = try await client.call(.post, path, json: ["email": email])
                    #expect(reply.status == .badRequest, "\(path) \(email.debugDescription): \(reply.text)")
                    #expect(reply.errorCode == "invalid_field")
                }
                // Any address: the same 202 whether or not it has an account.
                #expect(try await client.call(.post, path, json: ["email": "nobody@example.com"]).status == .accepted)
            }
        }
    }

    /// A `null` body is not an object with a field missing: it is the wrong JSON.
    @Test func aNullBodyIsInvalidJSON() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let reply = try await client.call(.post, "/v1/auth/logout", raw: Array("null".utf8), headers: [.contentType: "application/json"])
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "invalid_json", "\(reply.text)")
        }
    }
}

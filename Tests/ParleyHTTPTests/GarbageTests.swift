import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ParleyHTTP

/// Bad input gets a clear 4xx with a stable code: never a 500, never a crash.
@Suite struct GarbageTests {
    static let routes: [(HTTPRequest.Method, String)] = [
        (.post, "/v1/auth/register"), (.get, "/v1/auth/verify?token=%00"), (.post, "/v1/auth/verify"),
        (.post, "/v1/auth/resend-verification"), (.post, "/v1/auth/login"), (.post, "/v1/auth/refresh"),
        (.post, "/v1/auth/logout"), (.post, "/v1/auth/password-reset"), (.post, "/v1/auth/password-reset/confirm"),
        (.get, "/v1/me"), (.patch, "/v1/me"), (.put, "/v1/me/avatar"), (.delete, "/v1/me"),
        (.get, "/v1/users?query=%FF%FE"), (.get, "/v1/users/%2e%2e"), (.get, "/v1/avatars/..%2f..%2fetc%2fpasswd"),
        (.get, "/health"),
    ]

    static let bodies: [(String, [UInt8], String?)] = [
        ("empty", [], "application/json"),
        ("not json", Array("garbage".utf8), "application/json"),
        ("array", Array("[1,2,3]".utf8), "application/json"),
        ("null", Array("null".utf8), "application/json"),
        ("wrong types", Array(#"{"name":5,"email":[],"password":{},"dateOfBirth":true,"token":1,"refreshToken":2,"newPassword":3,"status":4}"#.utf8), "application/json"),
        ("nulls", Array(#"{"name":null,"email":null,"password":null,"token":null}"#.utf8), "application/json"),
        ("truncated", Array(#"{"email":"ann@exa"#.utf8), "application/json"),
        ("deep", Array(String(repeating: "[", count: 5000).utf8), "application/json"),
        ("binary", (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, "application/octet-stream"),
        ("bad multipart", Array("--x\r\nnope".utf8), "multipart/form-data; boundary=x"),
        ("multipart without boundary", Array("whatever".utf8), "multipart/form-data"),
        ("huge", [UInt8](repeating: 0x20, count: 7 * 1024 * 1024), "application/json"),
    ]

    @Test func everyRouteAnswersGarbageWithAClearError() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            for (method, path) in Self.routes {
                for (label, body, contentType) in Self.bodies {
                    for token in [nil, ann.accessToken] {
                        var headers: HTTPFields = [:]
                        if let contentType { headers[.contentType] = contentType }
                        let reply = try await client.call(method, path, raw: body, token: token, headers: headers)
                        #expect(reply.status.code < 500, "\(method) \(path) with \(label): \(reply.status) \(reply.text.prefix(200))")
                        if reply.status.code >= 400, reply.headers[.contentType]?.hasPrefix("application/json") == true {
                            #expect(reply.errorCode != nil, "\(method) \(path) with \(label): \(reply.text.prefix(200))")
                        }
                    }
                }
            }
            // Still serving, and the account is as it was (logout with an empty body is a real logout,
            // so log in afresh).
            let again = try await client.logIn("ann@example.com")
            let me = try await client.call(.get, "/v1/me", token: again.accessToken)
            #expect(me.user["name"] as? String == "Ann")
            #expect(me.user["status"] as? String == "")
        }
    }

    @Test func unknownRoutesAndMethodsAreJSONErrors() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let missing = try await client.call(.get, "/v1/nothing-here")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "not_found")
            let wrongMethod = try await client.call(.delete, "/v1/auth/login")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.errorCode == "method_not_allowed")
            #expect(wrongMethod.headers[.allow] == "POST")
            // Paths with captures too, and before any authentication.
            let onUser = try await client.call(.post, "/v1/users/someone")
            #expect(onUser.status == .methodNotAllowed && onUser.headers[.allow] == "GET", "\(onUser.text)")
            let me = try await client.call(.put, "/v1/me")
            #expect(me.status == .methodNotAllowed)
            #expect(me.headers[.allow]?.contains("GET") == true && me.headers[.allow]?.contains("PATCH") == true, "\(me.headers)")
            #expect(try await client.call(.post, "/health").headers[.allow] == "GET")
            let deeper = try await client.call(.get, "/v1/users/someone/else")
            #expect(deeper.status == .notFound && deeper.errorCode == "not_found")
        }
    }

    @Test func missingFieldsAndWrongTypesNameTheField() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let missing = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com"])
            #expect(missing.status == .badRequest)
            #expect(missing.errorCode == "missing_field")
            #expect((missing.json["error"] as? [String: any Sendable])?["message"] as? String == "password is required")
            let wrong = try await client.call(.post, "/v1/auth/login", json: ["email": "ann@example.com", "password": 12345678])
            #expect(wrong.errorCode == "invalid_field")
            #expect((wrong.json["error"] as? [String: any Sendable])?["message"] as? String == "password: expected a string")
            let notJSON = try await client.call(.post, "/v1/auth/login", raw: Array("email=a&password=b".utf8))
            #expect(notJSON.errorCode == "invalid_json")
        }
    }
}

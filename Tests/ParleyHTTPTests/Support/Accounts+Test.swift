import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A person the tests register, verify and log in.
struct TestUser: Sendable {
    let id: String
    let email: String
    let password: String
    let accessToken: String
    let refreshToken: String
}

extension TestClientProtocol {
    func register(_ name: String, _ email: String, password: String = "correct horse", born: String = "2000-01-01") async throws -> Reply {
        try await call(.post, "/v1/auth/register", json: ["name": name, "email": email, "password": password, "dateOfBirth": born])
    }

    /// Registers, follows the mailed link and logs in.
    func signUp(_ name: String, _ email: String, password: String = "correct horse", outbox: Outbox) async throws -> TestUser {
        let registered = try await register(name, email, password: password)
        #expect(registered.status == .created, "\(registered.text)")
        let link = try token(inMail: try await outbox.mail(to: email))
        let verified = try await call(.post, "/v1/auth/verify", json: ["token": link])
        #expect(verified.status == .ok, "\(verified.text)")
        return try await logIn(email, password: password)
    }

    func logIn(_ email: String, password: String = "correct horse") async throws -> TestUser {
        let reply = try await call(.post, "/v1/auth/login", json: ["email": email, "password": password, "deviceName": "iPhone"])
        try #require(reply.status == .ok, "\(reply.text)")
        return TestUser(
            id: reply.user["id"] as! String, email: email, password: password,
            accessToken: reply["accessToken"] as! String, refreshToken: reply["refreshToken"] as! String)
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The folder the default SMS transport writes to.
struct SMSOutbox {
    let directory: String

    /// The texts sent to `number` so far, oldest first.
    func texts(to number: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".sms") }.sorted()
        return names.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
            .filter { $0.hasPrefix("To: \(number)\n") }
    }

    /// The code in the latest text to `number`.
    func latestCode(to number: String) throws -> String {
        try #require(texts(to: number).last.flatMap(smsCode(in:)), "no code texted to \(number)")
    }
}

/// The six-digit code a sign-up text carries.
func smsCode(in text: String) -> String? {
    text.firstMatch(of: /(\d{6}) is your Parley code/).map { String($0.1) }
}

extension TestParley {
    var smsOutbox: SMSOutbox { SMSOutbox(directory: directory + "/sms-outbox") }
}

extension TestClientProtocol {
    func requestPhoneCode(_ number: String) async throws -> Reply {
        try await call(.post, "/v1/auth/phone/code", json: ["phoneNumber": number])
    }

    func registerPhone(_ number: String, code: String, first: String, last: String, password: String = "correct horse") async throws -> Reply {
        try await call(.post, "/v1/auth/phone/register", json: [
            "phoneNumber": number, "code": code, "password": password, "firstName": first, "lastName": last, "deviceName": "iPhone",
        ])
    }

    /// Asks for a code, reads it from the SMS outbox and signs up with it.
    func signUpByPhone(_ number: String, _ first: String, _ last: String, password: String = "correct horse", parley: TestParley) async throws -> TestUser {
        let sent = try await requestPhoneCode(number)
        try #require(sent.status == .accepted, "\(sent.text)")
        let e164 = try #require(sent["phoneNumber"] as? String)
        let reply = try await registerPhone(number, code: try parley.smsOutbox.latestCode(to: e164), first: first, last: last, password: password)
        try #require(reply.status == .created, "\(reply.text)")
        return TestUser(id: reply.user["id"] as! String, email: e164, password: password,
                        accessToken: reply["accessToken"] as! String, refreshToken: reply["refreshToken"] as! String)
    }
}

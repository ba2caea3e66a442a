import Foundation
import Logging
@testable import ParleySMS
import ParleyTestSupport
import Testing

@Suite struct HTTPSMSTransportTests {
    let logger = Logger(label: "sms-test")

    @Test func aMessageReachesTheProviderAsItsAPIAsks() async throws {
        let provider = try await SMSProviderStandIn.start()
        defer { provider.stop() }
        let transport = HTTPSMSTransport(configuration: .init(
            baseURL: provider.url, accountID: provider.accountID, authToken: provider.authToken, from: provider.from), logger: logger)
        try await transport.send(SMSMessage(to: "+447700900123", text: "123456 is your code & more: ünïcode + spaces"))
        let record = try await provider.record()
        #expect(record.refused.isEmpty, "\(record.refused)")
        #expect(record.messages.map(\.to) == ["+447700900123"])
        #expect(record.messages.first?.body == "123456 is your code & more: ünïcode + spaces")
        #expect(record.messages.first?.from == provider.from)
    }

    @Test func aWrongTokenIsRefusedAndSaysWhy() async throws {
        let provider = try await SMSProviderStandIn.start()
        defer { provider.stop() }
        let transport = HTTPSMSTransport(configuration: .init(
            baseURL: provider.url, accountID: provider.accountID, authToken: "not-the-token", from: provider.from), logger: logger)
        await #expect(throws: SMSError.refused(status: 401, code: 20003, message: "Authenticate")) {
            try await transport.send(SMSMessage(to: "+447700900123", text: "hello"))
        }
        #expect(try await provider.messages().isEmpty)
    }

    @Test func aSenderTheProviderDoesNotKnowIsRefused() async throws {
        let provider = try await SMSProviderStandIn.start()
        defer { provider.stop() }
        let transport = HTTPSMSTransport(configuration: .init(
            baseURL: provider.url, accountID: provider.accountID, authToken: provider.authToken, from: "+15550000000"), logger: logger)
        do {
            try await transport.send(SMSMessage(to: "+447700900123", text: "hello"))
            Issue.record("an unknown sender was accepted")
        } catch let SMSError.refused(status, code, _) {
            #expect(status == 400)
            #expect(code == 21606)
        }
    }

    @Test func formEncodingFollowsTheURLStandard() {
        #expect(HTTPSMSTransport.formEncode([("To", "+1 415"), ("Body", "a&b=c é")]) == "To=%2B1+415&Body=a%26b%3Dc+%C3%A9")
    }

    @Test func theOutboxWritesOneFilePerMessage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sms-outbox-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outbox = OutboxSMSTransport(directory: directory, logger: logger)
        try await outbox.send(SMSMessage(to: "+14155552671", text: "first"))
        try await outbox.send(SMSMessage(to: "+14155552672", text: "second"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names.count == 2)
        #expect(names.allSatisfy { $0.hasSuffix(".sms") && !$0.hasPrefix(".") })
        let texts = try names.map { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
        #expect(texts.contains("To: +14155552671\n\nfirst\n"))
        #expect(texts.contains("To: +14155552672\n\nsecond\n"))
    }
}

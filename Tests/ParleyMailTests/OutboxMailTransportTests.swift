import Foundation
import Logging
import ParleyTestSupport
import Testing

@testable import ParleyMail

@Suite("OutboxMailTransport")
struct OutboxMailTransportTests {
    let from = MailAddress(address: "no-reply@parley.example", name: "Parley")

    @Test("writes a parseable .eml into a folder it creates")
    func writesEML() async throws {
        let root = try makeTemporaryDirectory(prefix: "outbox")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("nested/outbox").path
        let outbox = OutboxMailTransport(directory: directory, from: from, logger: Logger(label: "test"))

        let message = MailMessage(to: "alice@example.com", toName: "Alice", subject: "Ünïcode subject", text: "Your code: 424242\n", html: "<b>424242</b>")
        let path = try await outbox.write(message)
        try await outbox.send(message)

        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files.count == 2, "no temporary files left behind: \(files)")
        #expect(files.allSatisfy { $0.hasSuffix(".eml") && !$0.hasPrefix(".") })
        #expect(files.first == (path as NSString).lastPathComponent, "names sort by time")

        let mail = try ParsedMail(String(contentsOfFile: path, encoding: .utf8))
        #expect(mail.header("To") == "\"Alice\" <alice@example.com>")
        #expect(mail.header("From") == "\"Parley\" <no-reply@parley.example>")
        #expect(mail.header("Subject") == "Ünïcode subject")
        #expect(mail.part("text/plain")?.body == "Your code: 424242\n")
        #expect(mail.part("text/html")?.body == "<b>424242</b>")

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("file names sort in time order")
    func fileNames() {
        let early = OutboxMailTransport.fileName(for: Date(timeIntervalSince1970: 1_700_000_000.25))
        let late = OutboxMailTransport.fileName(for: Date(timeIntervalSince1970: 1_700_000_000.5))
        let later = OutboxMailTransport.fileName(for: Date(timeIntervalSince1970: 1_700_000_010))
        #expect(early.hasPrefix("20231114T221320.250Z-"))
        #expect(early < late && late < later)
        #expect(early != OutboxMailTransport.fileName(for: Date(timeIntervalSince1970: 1_700_000_000.25)))
    }

    @Test("refuses an invalid recipient without writing anything")
    func invalidRecipient() async throws {
        let root = try makeTemporaryDirectory(prefix: "outbox")
        defer { try? FileManager.default.removeItem(at: root) }
        let outbox = OutboxMailTransport(directory: root.path, from: from, logger: Logger(label: "test"))
        await #expect(throws: MailError.self) {
            try await outbox.send(MailMessage(to: "bad\r\nBcc: x@y", subject: "s", text: "t", html: "h"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)
    }
}

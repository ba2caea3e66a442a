import Foundation
import Testing

@testable import ParleyMail

@Suite("MailRenderer")
struct MailRendererTests {
    let renderer = MailRenderer(from: MailAddress(address: "no-reply@parley.example", name: "Parley"))
    // 2025-11-22 14:35:07 UTC, a Saturday.
    let date = Date(timeIntervalSince1970: 1_763_822_107)

    func message(subject: String = "Confirm your address", text: String = "Hello!\nYour code is 123456.\n", html: String = "<p>Hello!</p>\n") -> MailMessage {
        MailMessage(to: "alice@example.com", toName: "Alice Liddell", subject: subject, text: text, html: html)
    }

    @Test("writes the RFC 5322 and MIME headers")
    func headers() throws {
        let rendered = try renderer.render(message(), date: date, messageID: "abc123@parley.example")
        let mail = try ParsedMail(rendered.text)
        #expect(mail.rawHeader("From") == "\"Parley\" <no-reply@parley.example>")
        #expect(mail.rawHeader("To") == "\"Alice Liddell\" <alice@example.com>")
        #expect(mail.rawHeader("Subject") == "Confirm your address")
        #expect(mail.rawHeader("Date") == "Sat, 22 Nov 2025 14:35:07 +0000")
        #expect(mail.rawHeader("Message-ID") == "<abc123@parley.example>")
        #expect(rendered.messageID == "<abc123@parley.example>")
        #expect(mail.rawHeader("MIME-Version") == "1.0")
        #expect(mail.rawHeader("Content-Type")?.hasPrefix("multipart/alternative; boundary=\"=_parley_") == true)
    }

    @Test("generates a unique Message-ID on the sender's domain")
    func generatedMessageID() throws {
        let first = try renderer.render(message(), date: date)
        let second = try renderer.render(message(), date: date)
        #expect(first.messageID.hasPrefix("<") && first.messageID.hasSuffix("@parley.example>"))
        #expect(first.messageID != second.messageID)
    }

    @Test("has a text/plain part then a text/html part, both UTF-8 and 7bit when ASCII")
    func parts() throws {
        let mail = try ParsedMail(renderer.render(message(), date: date).text)
        #expect(mail.parts.count == 2)
        #expect(mail.parts[0].rawHeader("Content-Type") == "text/plain; charset=utf-8")
        #expect(mail.parts[1].rawHeader("Content-Type") == "text/html; charset=utf-8")
        #expect(mail.parts.allSatisfy { $0.rawHeader("Content-Transfer-Encoding") == "7bit" })
        #expect(mail.parts[0].body == "Hello!\nYour code is 123456.\n")
        #expect(mail.parts[1].body == "<p>Hello!</p>\n")
    }

    @Test("uses CRLF for every line break and nothing else", arguments: ["a\nb\n", "a\r\nb\r\n", "a\rb\r", "mixed\n\r\n\rend"])
    func crlf(text: String) throws {
        let raw = try renderer.render(message(text: text, html: "x\ny"), date: date).text
        let bytes = Array(raw.utf8)
        #expect(raw.hasSuffix("\r\n"))
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "\n") { #expect(index > 0 && bytes[index - 1] == UInt8(ascii: "\r")) }
            if byte == UInt8(ascii: "\r") { #expect(index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n")) }
        }
        #expect(bytes.allSatisfy { $0 < 0x80 }, "rendered mail is pure ASCII")
    }

    @Test("switches a part to base64 when it is not ASCII")
    func base64ForNonASCII() throws {
        let text = "Grüße aus Köln — 你好 👋\nZweite Zeile\n"
        let rendered = try renderer.render(message(text: text), date: date)
        let mail = try ParsedMail(rendered.text)
        let plain = try #require(mail.part("text/plain"))
        #expect(plain.rawHeader("Content-Transfer-Encoding") == "base64")
        #expect(plain.body == "Grüße aus Köln — 你好 👋\r\nZweite Zeile\r\n")
        #expect(mail.part("text/html")?.rawHeader("Content-Transfer-Encoding") == "7bit")
        for line in rendered.text.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 78, "line too long: \(line)")
        }
    }

    @Test("switches a part to base64 when a line exceeds 998 octets")
    func base64ForLongLines() throws {
        let long = String(repeating: "a", count: 999)
        let mail = try ParsedMail(renderer.render(message(html: long), date: date).text)
        let html = try #require(mail.part("text/html"))
        #expect(html.rawHeader("Content-Transfer-Encoding") == "base64")
        #expect(html.body == long)
        let exactly998 = String(repeating: "b", count: 998)
        let ok = try ParsedMail(renderer.render(message(html: exactly998), date: date).text)
        #expect(ok.part("text/html")?.rawHeader("Content-Transfer-Encoding") == "7bit")
    }

    @Test("encodes a non-ASCII subject and display names as RFC 2047 encoded-words")
    func encodedWordSubject() throws {
        let subject = "Bestätige deine Adresse für Parley — ein ziemlich langer Betreff mit Umlauten äöü"
        let msg = MailMessage(to: "jose@example.com", toName: "José", subject: subject, text: "hi", html: "hi")
        let rendered = try renderer.render(msg, date: date)
        let mail = try ParsedMail(rendered.text)
        let raw = try #require(mail.rawHeader("Subject"))
        #expect(raw.hasPrefix("=?utf-8?B?"))
        for word in raw.split(separator: " ") {
            #expect(word.hasPrefix("=?utf-8?B?") && word.hasSuffix("?="))
            #expect(word.count <= 75)
        }
        #expect(mail.header("Subject") == subject)
        #expect(mail.rawHeader("To")?.hasPrefix("=?utf-8?B?") == true)
        #expect(mail.header("To") == "José <jose@example.com>")
        // The long subject was folded onto continuation lines.
        #expect(rendered.text.contains("\r\n =?utf-8?B?"))
    }

    @Test("never lets header values start a new header")
    func headerInjection() throws {
        let msg = MailMessage(to: "a@example.com", toName: "Eve\r\nBcc: victim@example.com", subject: "Hi\r\nBcc: victim@example.com", text: "t", html: "h")
        let mail = try ParsedMail(renderer.render(msg, date: date).text)
        #expect(mail.rawHeader("Bcc") == nil)
    }

    @Test("rejects unsafe addresses", arguments: ["", "no-at-sign", "a@b@c", "x@example.com>\r\nRCPT TO:<y@example.com", "a b@example.com", "@example.com", "user@"])
    func invalidAddress(address: String) {
        #expect(throws: MailError.invalidAddress(address)) {
            try renderer.render(MailMessage(to: address, subject: "s", text: "t", html: "h"))
        }
    }

    @Test("quotes display names containing specials")
    func quotedDisplayName() throws {
        let msg = MailMessage(to: "a@example.com", toName: "Smith, \"Bob\"", subject: "s", text: "t", html: "h")
        let mail = try ParsedMail(renderer.render(msg, date: date).text)
        #expect(mail.rawHeader("To") == "\"Smith, \\\"Bob\\\"\" <a@example.com>")
    }
}

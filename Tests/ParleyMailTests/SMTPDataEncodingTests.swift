import Foundation
import Testing

@testable import ParleyMail

@Suite("SMTP DATA encoding")
struct SMTPDataEncodingTests {
    func encoded(_ text: String) -> String {
        String(decoding: SMTPDataEncoding.encode(text), as: UTF8.self)
    }

    @Test("doubles a leading dot on every line (RFC 5321 §4.5.2)")
    func dotStuffing() {
        #expect(encoded(".hidden\r\nok\r\n..two\r\n.\r\n") == "..hidden\r\nok\r\n...two\r\n..\r\n.\r\n")
        #expect(encoded("mid.dle.\r\n") == "mid.dle.\r\n.\r\n")
    }

    @Test("normalises bare LF and CR to CRLF and terminates with CRLF.CRLF")
    func lineEndings() {
        #expect(encoded("a\nb\rc") == "a\r\nb\r\nc\r\n.\r\n")
        #expect(encoded("") == ".\r\n")
    }

    @Test("a rendered message with a body line starting with '.' is dot-stuffed in DATA")
    func renderedMessage() throws {
        let renderer = MailRenderer(from: MailAddress(address: "no-reply@parley.example"))
        let text = "Line one\n.Line two starts with a dot\n.\nend\n"
        let rendered = try renderer.render(MailMessage(to: "bob@example.com", subject: "dots", text: text, html: "<p>x</p>"))
        #expect(rendered.text.contains("\r\n.Line two starts with a dot\r\n"))
        let data = encoded(rendered.text)
        #expect(data.contains("\r\n..Line two starts with a dot\r\n"))
        #expect(data.contains("\r\n..\r\nend\r\n"))
        #expect(data.hasSuffix("\r\n.\r\n"))
        // Exactly one terminator: no line of the stuffed body is a lone dot.
        #expect(data.components(separatedBy: "\r\n").filter { $0 == "." }.count == 1)
    }
}

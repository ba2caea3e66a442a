import Testing

@testable import ParleyMail

@Suite("SMTP reply parser")
struct SMTPReplyParserTests {
    @Test("assembles multi-line replies (RFC 5321 §4.2.1)")
    func multiline() throws {
        var parser = SMTPReplyParser()
        let replies = try parser.feed(Array("250-mail.example Hello\r\n250-SIZE 1000\r\n250-STARTTLS\r\n250 AUTH PLAIN LOGIN\r\n".utf8))
        #expect(replies == [SMTPReply(code: 250, lines: ["mail.example Hello", "SIZE 1000", "STARTTLS", "AUTH PLAIN LOGIN"])])
        let capabilities = SMTPCapabilities(ehloReply: replies[0])
        #expect(capabilities.supportsStartTLS)
        #expect(capabilities.authMechanisms == ["PLAIN", "LOGIN"])
        #expect(!parser.hasUnconsumedInput)
    }

    @Test("handles replies split across reads, bare codes and LF-only lines")
    func fragmented() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.feed(Array("22".utf8)).isEmpty)
        #expect(parser.hasUnconsumedInput)
        #expect(try parser.feed(Array("0-first\r".utf8)).isEmpty)
        let replies = try parser.feed(Array("\n220 second\r\n250\n".utf8))
        #expect(replies == [SMTPReply(code: 220, lines: ["first", "second"]), SMTPReply(code: 250, lines: [""])])
        #expect(!parser.hasUnconsumedInput)
    }

    @Test("rejects garbage", arguments: ["hello\r\n", "25\r\n", "250x\r\n", "650 nope\r\n", "250-a\r\n251 b\r\n"])
    func malformed(input: String) {
        var parser = SMTPReplyParser()
        #expect(throws: SMTPError.self) { try parser.feed(Array(input.utf8)) }
    }

    @Test("reads the pre-standard AUTH= form")
    func oldAuth() {
        let capabilities = SMTPCapabilities(ehloReply: SMTPReply(code: 250, lines: ["hi", "AUTH=LOGIN PLAIN"]))
        #expect(capabilities.authMechanisms == ["LOGIN", "PLAIN"])
        #expect(!capabilities.supportsStartTLS)
    }
}

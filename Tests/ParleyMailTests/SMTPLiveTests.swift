import Foundation
import Logging
import NIOCore
import NIOPosix
import ParleyTestSupport
import Testing

@testable import ParleyMail

/// SMTPMailTransport against a real SMTP server: aiosmtpd, started per test.
@Suite("SMTPMailTransport against aiosmtpd", .serialized, .timeLimit(.minutes(2)))
struct SMTPLiveTests {
    let from = MailAddress(address: "no-reply@parley.example", name: "Parley")
    let logger = Logger(label: "parley.mail.test")

    func transport(port: Int, tls: SMTPConfiguration.TLSMode, caCertificatePath: String? = nil,
                   username: String? = nil, password: String? = nil) throws -> SMTPMailTransport {
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: port, tls: tls, username: username, password: password,
            caCertificatePath: caCertificatePath, helloName: "parley.test",
            connectTimeout: .seconds(5), commandTimeout: .seconds(10))
        return try SMTPMailTransport(configuration: configuration, from: from, logger: logger)
    }

    func sampleMessage(subject: String = "Welcome to Parley") -> MailMessage {
        MailMessage(
            to: "alice@example.com", toName: "Alice", subject: subject,
            text: "Hi Alice,\n.this line starts with a dot\nYour code is 424242.\n",
            html: "<p>Hi Alice, your code is <b>424242</b>.</p>")
    }

    /// Checks the single delivered message carries `message`'s To, Subject and text.
    func expectDelivered(_ message: MailMessage, in server: LiveSMTPServer) throws {
        let delivered = try server.deliveredMessages()
        try #require(delivered.count == 1, "expected one message in the Maildir; aiosmtpd log:\n\(server.log)")
        let mail = try ParsedMail(delivered[0])
        #expect(mail.header("To") == "\"Alice\" <alice@example.com>")
        #expect(mail.header("Subject") == message.subject)
        #expect(mail.header("X-RcptTo") == "alice@example.com")
        #expect(mail.header("X-MailFrom") == "no-reply@parley.example")
        let text = try #require(mail.part("text/plain")).body.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(text == message.text)
    }

    @Test("delivers a message over plain SMTP")
    func plainDelivery() async throws {
        let server = try await LiveSMTPServer.start()
        defer { server.stop() }
        let message = sampleMessage()
        try await transport(port: server.port, tls: .startTLSIfAvailable).send(message)
        try expectDelivered(message, in: server)
    }

    @Test("upgrades with STARTTLS and verifies the server against the configured CA")
    func startTLSDelivery() async throws {
        let work = try makeTemporaryDirectory(prefix: "aiosmtpd-tls")
        let cert = try TestCertificate.make(in: work)
        // aiosmtpd advertises STARTTLS when given --tlscert/--tlskey and, by default
        // (require_starttls), refuses MAIL until TLS is up: delivery proves the upgrade happened.
        let server = try await LiveSMTPServer.start(
            arguments: ["--tlscert", cert.certificatePath, "--tlskey", cert.keyPath], in: work)
        defer { server.stop() }
        let message = sampleMessage(subject: "Bestätigung — 確認 ✉️")
        try await transport(port: server.port, tls: .requireStartTLS, caCertificatePath: cert.certificatePath).send(message)
        try expectDelivered(message, in: server)
    }

    @Test("requireStartTLS fails clearly against a server without STARTTLS, delivering nothing")
    func requireStartTLSWithoutSupport() async throws {
        let server = try await LiveSMTPServer.start()
        defer { server.stop() }
        await #expect(throws: SMTPError.startTLSUnavailable) {
            try await transport(port: server.port, tls: .requireStartTLS).send(sampleMessage())
        }
        #expect(try server.deliveredMessages().isEmpty)
    }

    @Test("refuses a certificate it does not trust, delivering nothing")
    func untrustedCertificate() async throws {
        let work = try makeTemporaryDirectory(prefix: "aiosmtpd-tls")
        let cert = try TestCertificate.make(in: work)
        let otherDirectory = try makeTemporaryDirectory(prefix: "other-ca")
        defer { try? FileManager.default.removeItem(at: otherDirectory) }
        let other = try TestCertificate.make(in: otherDirectory)
        let server = try await LiveSMTPServer.start(
            arguments: ["--tlscert", cert.certificatePath, "--tlskey", cert.keyPath], in: work)
        defer { server.stop() }
        let error = await #expect(throws: SMTPError.self) {
            try await transport(port: server.port, tls: .requireStartTLS, caCertificatePath: other.certificatePath).send(sampleMessage())
        }
        guard case .tls = error else {
            Issue.record("expected a TLS error, got \(String(describing: error))")
            return
        }
        #expect(try server.deliveredMessages().isEmpty)
    }

    @Test("speaks implicit TLS (SMTPS)")
    func implicitTLS() async throws {
        let work = try makeTemporaryDirectory(prefix: "aiosmtpd-smtps")
        let cert = try TestCertificate.make(in: work)
        let server = try await LiveSMTPServer.start(
            arguments: ["--smtpscert", cert.certificatePath, "--smtpskey", cert.keyPath], in: work)
        defer { server.stop() }
        let message = sampleMessage()
        try await transport(port: server.port, tls: .implicit, caCertificatePath: cert.certificatePath).send(message)
        try expectDelivered(message, in: server)
    }

    /// aiosmtpd's CLI cannot enable AUTH, so this starts the same server from a few lines of
    /// Python with an authenticator, STARTTLS required, and one mechanism left on offer.
    static let authServerScript = """
        import sys, ssl, threading
        from aiosmtpd.controller import Controller
        from aiosmtpd.handlers import Mailbox
        from aiosmtpd.smtp import AuthResult, LoginPassword
        port, maildir, cert, key, mechanism = sys.argv[1:6]
        def authenticator(server, session, envelope, mech, data):
            ok = isinstance(data, LoginPassword) and data.login == b"parley" and data.password == b"s3cret pass"
            return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd sends the 535
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        excluded = [m for m in ("PLAIN", "LOGIN") if m != mechanism]
        controller = Controller(Mailbox(maildir), hostname="127.0.0.1", port=int(port), tls_context=context,
                                require_starttls=True, auth_require_tls=True, auth_required=True,
                                authenticator=authenticator, auth_exclude_mechanism=excluded)
        controller.start()
        print("listening", flush=True)
        threading.Event().wait()
        """

    @Test("authenticates after STARTTLS", arguments: ["PLAIN", "LOGIN"])
    func authentication(mechanism: String) async throws {
        let work = try makeTemporaryDirectory(prefix: "aiosmtpd-auth")
        let cert = try TestCertificate.make(in: work)
        let server = try await LiveSMTPServer.startScript(
            Self.authServerScript, scriptArguments: ["{port}", "{maildir}", cert.certificatePath, cert.keyPath, mechanism], in: work)
        defer { server.stop() }

        let wrong = try transport(port: server.port, tls: .startTLSIfAvailable, caCertificatePath: cert.certificatePath,
                                  username: "parley", password: "wrong")
        let error = await #expect(throws: SMTPError.self) { try await wrong.send(sampleMessage()) }
        #expect(error?.replyCode == 535)

        let message = sampleMessage()
        try await transport(port: server.port, tls: .startTLSIfAvailable, caCertificatePath: cert.certificatePath,
                            username: "parley", password: "s3cret pass").send(message)
        try expectDelivered(message, in: server)
    }

    @Test("startTLSIfAvailable never sends credentials in plaintext")
    func noPlaintextCredentials() async throws {
        let server = try await LiveSMTPServer.start()
        defer { server.stop() }
        await #expect(throws: SMTPError.startTLSUnavailable) {
            try await transport(port: server.port, tls: .startTLSIfAvailable, username: "u", password: "p").send(sampleMessage())
        }
        #expect(try server.deliveredMessages().isEmpty)
    }
}

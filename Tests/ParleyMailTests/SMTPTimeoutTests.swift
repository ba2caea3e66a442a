import Logging
import NIOCore
import NIOPosix
import ParleyTestSupport
import Testing

@testable import ParleyMail

@Suite("SMTPMailTransport timeouts and connection errors")
struct SMTPTimeoutTests {
    @Test("times out when the server never greets")
    func silentServer() async throws {
        // A plain TCP listener that accepts and says nothing: no SMTP involved.
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let configuration = SMTPConfiguration(host: "127.0.0.1", port: port, tls: .none, commandTimeout: .milliseconds(300))
        let transport = try SMTPMailTransport(
            configuration: configuration, from: MailAddress(address: "a@parley.example"), logger: Logger(label: "test"))
        let start = ContinuousClock.now
        await #expect(throws: SMTPError.timeout(stage: "greeting")) {
            try await transport.send(MailMessage(to: "b@example.com", subject: "s", text: "t", html: "h"))
        }
        // The 300 ms command timeout, not a connection left waiting: far under any default,
        // with room for a loaded machine (a full run in parallel once took 6 s).
        #expect(ContinuousClock.now - start < .seconds(20))
        try await listener.close()
    }

    @Test("reports a refused connection")
    func refused() async throws {
        let port = try await LiveSMTPServer.freePort()
        let transport = try SMTPMailTransport(
            configuration: SMTPConfiguration(host: "127.0.0.1", port: port, tls: .none),
            from: MailAddress(address: "a@parley.example"), logger: Logger(label: "test"))
        let error = await #expect(throws: SMTPError.self) {
            try await transport.send(MailMessage(to: "b@example.com", subject: "s", text: "t", html: "h"))
        }
        guard case .connectionFailed(host: "127.0.0.1", port: port, reason: _) = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
    }

    @Test("rejects a missing CA file at construction")
    func missingCAFile() {
        #expect(throws: SMTPError.self) {
            try SMTPMailTransport(
                configuration: SMTPConfiguration(host: "localhost", tls: .requireStartTLS, caCertificatePath: "/nonexistent/ca.pem"),
                from: MailAddress(address: "a@parley.example"), logger: Logger(label: "test"))
        }
    }
}

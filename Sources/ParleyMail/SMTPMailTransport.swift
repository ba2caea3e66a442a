import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Delivers mail to an SMTP server (RFC 5321) over SwiftNIO, one connection per message:
/// greeting, EHLO (HELO if refused), STARTTLS (RFC 3207) and EHLO again, AUTH PLAIN or LOGIN
/// (RFC 4954), MAIL FROM, RCPT TO, DATA, QUIT.
///
/// Every failure is thrown as an ``SMTPError``, or a ``MailError`` when the message itself is
/// invalid. Nothing is retried here.
public final class SMTPMailTransport: MailTransport {
    /// Where and how to connect.
    public let configuration: SMTPConfiguration
    /// Renders messages; its `from` is also the envelope sender.
    public let renderer: MailRenderer
    private let eventLoopGroup: any EventLoopGroup
    private let tlsContext: NIOSSLContext?
    private let logger: Logger

    /// Creates a transport sending as `from`.
    ///
    /// - Throws: ``SMTPError/invalidConfiguration(_:)`` when the CA file cannot be loaded, the TLS
    ///   context cannot be built, or `helloName` / `from` are unusable.
    public convenience init(
        configuration: SMTPConfiguration,
        from: MailAddress,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws {
        try self.init(
            configuration: configuration, renderer: MailRenderer(from: from),
            eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// Creates a transport with a custom renderer.
    public init(
        configuration: SMTPConfiguration,
        renderer: MailRenderer,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws {
        guard MailAddress.isValid(renderer.from.address) else {
            throw SMTPError.invalidConfiguration("sender address \(String(reflecting: renderer.from.address)) is not valid")
        }
        guard !configuration.helloName.isEmpty,
            configuration.helloName.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw SMTPError.invalidConfiguration("helloName \(String(reflecting: configuration.helloName)) is not a host name")
        }
        self.configuration = configuration
        self.renderer = renderer
        self.eventLoopGroup = eventLoopGroup
        self.tlsContext = configuration.tls == .none ? nil : try Self.makeTLSContext(configuration)
        var logger = logger
        logger[metadataKey: "smtp.host"] = .string(configuration.host)
        logger[metadataKey: "smtp.port"] = .stringConvertible(configuration.port)
        self.logger = logger
    }

    /// Delivers `message`, returning once the server has accepted it (`250` after the data).
    public func send(_ message: MailMessage) async throws {
        let rendered = try renderer.render(message)
        var logger = self.logger
        logger[metadataKey: "mail.to"] = .string(message.to)
        logger[metadataKey: "mail.message_id"] = .string(rendered.messageID)

        do {
            let connection = try await SMTPConnection.connect(
                configuration: configuration,
                implicitTLS: configuration.tls == .implicit ? tlsContext : nil,
                group: eventLoopGroup)
            do {
                let encrypted = try await converse(connection, rendered: rendered, to: message.to, logger: logger)
                await quit(connection, logger: logger)
                logger.info(
                    "Mail delivered over SMTP",
                    metadata: ["mail.subject": .string(message.subject), "smtp.encrypted": .stringConvertible(encrypted)])
            } catch {
                await connection.close()
                throw error
            }
        } catch {
            let smtpError = SMTPClientHandler.map(error, stage: "send")
            logger.warning(
                "SMTP delivery failed",
                metadata: ["mail.subject": .string(message.subject), "error": .string(smtpError.description)])
            throw smtpError
        }
    }

    // MARK: Conversation

    /// Runs the dialogue up to the accepted message; returns whether it went over TLS.
    private func converse(_ connection: SMTPConnection, rendered: RenderedMail, to recipient: String, logger: Logger) async throws -> Bool {
        let greeting = try await connection.awaitReply(stage: "greeting")
        try expect(greeting, codes: [220], command: "greeting", logger: logger)

        var capabilities = try await hello(connection, logger: logger)
        var encrypted = configuration.tls == .implicit

        switch configuration.tls {
        case .none, .implicit:
            break
        case .startTLSIfAvailable, .requireStartTLS:
            if capabilities.supportsStartTLS, let tlsContext {
                let reply = try await connection.command("STARTTLS", stage: "STARTTLS")
                try expect(reply, codes: [220], command: "STARTTLS", logger: logger)
                try await connection.startTLS(
                    context: tlsContext, serverHostname: SMTPConnection.serverNameIndication(for: configuration.host))
                // RFC 3207 §4.2: forget what was learnt before TLS and ask again.
                capabilities = try await hello(connection, logger: logger, allowHELO: false)
                encrypted = true
            } else if configuration.tls == .requireStartTLS || configuration.hasCredentials {
                throw SMTPError.startTLSUnavailable
            } else {
                logger.warning("SMTP server does not offer STARTTLS; sending in plaintext")
            }
        }

        if let username = configuration.username, let password = configuration.password {
            try await authenticate(connection, capabilities: capabilities, username: username, password: password, logger: logger)
        }

        let sender = renderer.from.address
        try expect(await connection.command("MAIL FROM:<\(sender)>", stage: "MAIL FROM"), codes: [250], command: "MAIL FROM", logger: logger)
        try expect(await connection.command("RCPT TO:<\(recipient)>", stage: "RCPT TO"), codes: [250, 251], command: "RCPT TO", logger: logger)
        try expect(await connection.command("DATA", stage: "DATA"), codes: [354], command: "DATA", logger: logger)
        let accepted = try await connection.send(SMTPDataEncoding.encode(rendered.text), stage: "message data")
        try expect(accepted, codes: [250], command: "message data", logger: logger)
        return encrypted
    }

    /// EHLO, or HELO when the server refuses EHLO with a 5xx (RFC 5321 §4.1.4, §3.2).
    private func hello(_ connection: SMTPConnection, logger: Logger, allowHELO: Bool = true) async throws -> SMTPCapabilities {
        let ehlo = try await connection.command("EHLO \(configuration.helloName)", stage: "EHLO")
        if ehlo.code == 250 {
            logger.debug("SMTP EHLO accepted", metadata: ["smtp.extensions": .string(ehlo.lines.dropFirst().joined(separator: ", "))])
            return SMTPCapabilities(ehloReply: ehlo)
        }
        guard allowHELO, ehlo.isPermanentFailure else {
            throw SMTPError.rejected(command: "EHLO", code: ehlo.code, message: ehlo.text)
        }
        logger.debug("SMTP EHLO refused; trying HELO", metadata: ["smtp.code": .stringConvertible(ehlo.code)])
        let helo = try await connection.command("HELO \(configuration.helloName)", stage: "HELO")
        try expect(helo, codes: [250], command: "HELO", logger: logger)
        return SMTPCapabilities()
    }

    /// AUTH PLAIN with an initial response, else AUTH LOGIN (RFC 4954; LOGIN is the common
    /// non-standard mechanism).
    private func authenticate(
        _ connection: SMTPConnection, capabilities: SMTPCapabilities, username: String, password: String, logger: Logger
    ) async throws {
        let mechanisms = capabilities.authMechanisms
        if mechanisms.contains("PLAIN") {
            let token = Self.base64("\u{0}\(username)\u{0}\(password)")
            let reply = try await connection.command("AUTH PLAIN \(token)", stage: "AUTH PLAIN")
            try expect(reply, codes: [235], command: "AUTH PLAIN", logger: logger)
        } else if mechanisms.contains("LOGIN") {
            try expect(await connection.command("AUTH LOGIN", stage: "AUTH LOGIN"), codes: [334], command: "AUTH LOGIN", logger: logger)
            try expect(await connection.command(Self.base64(username), stage: "AUTH LOGIN username"), codes: [334], command: "AUTH LOGIN username", logger: logger)
            try expect(await connection.command(Self.base64(password), stage: "AUTH LOGIN password"), codes: [235], command: "AUTH LOGIN password", logger: logger)
        } else {
            throw SMTPError.authenticationUnavailable(offered: mechanisms)
        }
    }

    /// QUIT politely; the message is already accepted, so problems here are only logged.
    private func quit(_ connection: SMTPConnection, logger: Logger) async {
        do {
            _ = try await connection.command("QUIT", stage: "QUIT")
        } catch {
            logger.debug("SMTP QUIT did not complete cleanly", metadata: ["error": .string(String(describing: error))])
        }
        await connection.close()
    }

    private func expect(_ reply: SMTPReply, codes: Set<Int>, command: String, logger: Logger) throws {
        logger.debug("SMTP reply", metadata: ["smtp.command": .string(command), "smtp.code": .stringConvertible(reply.code)])
        guard codes.contains(reply.code) else {
            throw SMTPError.rejected(command: command, code: reply.code, message: reply.text)
        }
    }

    // MARK: Helpers

    private static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
    }

    private static func makeTLSContext(_ configuration: SMTPConfiguration) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = configuration.verifyCertificate ? .fullVerification : .none
        if let path = configuration.caCertificatePath {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw SMTPError.invalidConfiguration("cannot load CA certificate at \(path): \(error)")
            }
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw SMTPError.invalidConfiguration("cannot create TLS context: \(error)")
        }
    }
}

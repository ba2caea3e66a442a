import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// One open SMTP connection: sends commands and awaits their replies. Knows nothing of the
/// conversation's order; ``SMTPMailTransport`` drives that.
struct SMTPConnection: Sendable {
    let channel: any Channel
    let firstFailure: SMTPFirstFailure

    /// Opens a TCP connection, with TLS from the first byte when `implicitTLS` is given.
    static func connect(
        configuration: SMTPConfiguration,
        implicitTLS: NIOSSLContext?,
        group: any EventLoopGroup
    ) async throws -> SMTPConnection {
        let replyTimeout = TimeAmount(configuration.commandTimeout)
        let serverHostname = Self.serverNameIndication(for: configuration.host)
        let firstFailure = SMTPFirstFailure()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let implicitTLS {
                        try sync.addHandler(NIOSSLClientHandler(context: implicitTLS, serverHostname: serverHostname))
                    }
                    try sync.addHandler(SMTPClientHandler(replyTimeout: replyTimeout, firstFailure: firstFailure))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
            return SMTPConnection(channel: channel, firstFailure: firstFailure)
        } catch ChannelError.connectTimeout {
            throw SMTPError.timeout(stage: "connect")
        } catch {
            throw SMTPError.connectionFailed(
                host: configuration.host, port: configuration.port, reason: String(describing: error))
        }
    }

    /// The SNI / verification name: the host, unless it is an IP literal (SNI forbids those;
    /// NIOSSL then verifies the certificate against the peer's IP address).
    static func serverNameIndication(for host: String) -> String? {
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (try? SocketAddress(ipAddress: unbracketed, port: 0)) == nil ? host : nil
    }

    /// Waits for a reply without sending anything (the greeting).
    func awaitReply(stage: String) async throws -> SMTPReply {
        try await exchange(payload: nil, stage: stage)
    }

    /// Sends `line` plus CRLF and returns the reply. `stage` names the step in errors and logs,
    /// so `line` may hold secrets.
    func command(_ line: String, stage: String) async throws -> SMTPReply {
        try await exchange(payload: ByteBuffer(string: line + "\r\n"), stage: stage)
    }

    /// Sends raw bytes (the dot-stuffed message and its terminator) and returns the reply.
    func send(_ bytes: [UInt8], stage: String) async throws -> SMTPReply {
        try await exchange(payload: ByteBuffer(bytes: bytes), stage: stage)
    }

    /// Puts TLS under the SMTP handler after a `220` reply to STARTTLS (RFC 3207 §4.2). Refuses
    /// if any plaintext is still unread, as it could be an injected response.
    func startTLS(context: NIOSSLContext, serverHostname: String?) async throws {
        let channel = self.channel
        try await channel.eventLoop.submit {
            let sync = channel.pipeline.syncOperations
            let handler = try sync.handler(type: SMTPClientHandler.self)
            guard !handler.hasUnconsumedInput else { throw SMTPError.dataAfterStartTLS }
            try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname), position: .first)
        }.get()
    }

    /// Closes the connection, ignoring errors.
    func close() async {
        try? await channel.close()
    }

    private func exchange(payload: ByteBuffer?, stage: String) async throws -> SMTPReply {
        let promise = channel.eventLoop.makePromise(of: SMTPReply.self)
        let request = SMTPRequest(stage: stage, payload: payload, promise: promise)
        // Only fails when the handler is gone (channel already torn down); it otherwise
        // completes the promise itself, and a second completion is ignored.
        let firstFailure = self.firstFailure
        channel.writeAndFlush(request).whenFailure { error in
            promise.fail(firstFailure.error ?? SMTPClientHandler.map(error, stage: stage))
        }
        return try await promise.futureResult.get()
    }
}

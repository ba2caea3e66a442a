import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyAccounts
import ParleyCalls
import ParleyCore
import ParleyRealtime

/// One device's WebSocket: reads commands in order, answers each, and writes the events its
/// mailbox collects. Replies go through the same mailbox, so one task writes the socket.
struct RealtimeSession {
    let principal: Principal
    let gateway: RealtimeGateway
    let logger: Logger

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async throws {
        let mailbox = Mailbox(userID: principal.userID, sessionID: principal.sessionID, capacity: gateway.settings.mailboxCapacity)
        // A device that stopped reading would hold the writer forever: past the mailbox's bound
        // the connection goes (it reconnects and syncs), and nobody else waits on it.
        let logger = self.logger
        mailbox.onOverflow {
            logger.notice("realtime connection too far behind; closing it")
            channel.close(promise: nil)
        }
        gateway.events.hub.attach(mailbox)
        await gateway.presence?.deviceReconnected(principal.sessionID, user: principal.userID)
        defer { gateway.events.hub.detach(mailbox) }
        let latest = try await gateway.events.latestSeq(of: principal.userID)
        let turn = gateway.iceServers.servers(for: principal.userID)
        mailbox.offer(Hello(userId: principal.userID.rawValue, sessionId: principal.sessionID.rawValue, latestSeq: latest,
                            iceServers: turn.iceServers, iceServersTtlSeconds: turn.ttlSeconds).frame)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in mailbox.frames {
                    try await outbound.write(.text(frame))
                }
                if mailbox.didOverflow {
                    logger.notice("realtime connection too far behind; closed")
                    try? await outbound.close(.policyViolation, reason: "too far behind: reconnect and sync")
                }
            }
            group.addTask {
                defer { mailbox.close() }
                do {
                    for try await message in inbound.messages(maxSize: gateway.settings.maxFrameBytes) {
                        switch message {
                        case .text(let text):
                            await handle(Array(text.utf8), mailbox: mailbox)
                        case .binary:
                            mailbox.offer(ReplyFrame.error(nil, ParleyError.badRequest("Frames are JSON text", code: "binary_not_supported")))
                        }
                    }
                } catch {
                    logger.info("realtime connection closed on bad input", metadata: ["error": "\(error)"])
                    try? await outbound.close(.messageTooLarge, reason: "frame too large")
                }
            }
            try await group.next()
            group.cancelAll()
        }
        gateway.events.hub.detach(mailbox)
        if !gateway.events.hub.isConnected(principal.sessionID, of: principal.userID) {
            await gateway.presence?.deviceDisconnected(principal.sessionID, user: principal.userID)
        }
    }

    /// Answers one command frame. Never throws: every failure is a reply.
    func handle(_ bytes: [UInt8], mailbox: Mailbox) async {
        let frame: CommandFrame
        switch CommandFrame.parse(bytes) {
        case .success(let parsed): frame = parsed
        case .failure(let error):
            mailbox.offer(ReplyFrame.error(CommandFrame.bestEffortID(bytes), error))
            return
        }
        let caller = CommandCaller(userID: principal.userID, sessionID: principal.sessionID)
        do {
            switch frame.type {
            case "ping":
                mailbox.offer(ReplyFrame.ok(frame.idJSON, Pong(serverTime: Date())))
            case "sync":
                let request = try RealtimeCommands.decode(SyncRequest.self, from: bytes)
                // The session may have ended (logout, password reset) since the socket opened.
                _ = try await gateway.accounts.checkSession(principal)
                let limit = min(max(request.limit ?? 500, 1), 1000)
                let page = try await gateway.events.events(of: principal.userID, since: max(request.since, 0), limit: limit)
                // Events meant for every device but this one (answered elsewhere) are skipped.
                let mine = page.events.filter { $0.exceptSession != principal.sessionID }
                for event in mine { mailbox.offer(event.frame) }
                let last = page.events.last?.seq ?? page.latest
                mailbox.offer(ReplyFrame.ok(frame.idJSON, SyncReply(count: mine.count, latestSeq: page.latest, more: last < page.latest)))
            default:
                guard let handler = gateway.commands.handler(for: frame.type) else {
                    throw ParleyError.badRequest("Unknown command \(frame.type)", code: "unknown_command")
                }
                // The session may have ended (logout, password reset) since the socket opened.
                _ = try await gateway.accounts.checkSession(principal)
                mailbox.offer(ReplyFrame.ok(frame.idJSON, try await handler(caller, bytes)))
            }
        } catch let error as ParleyError {
            mailbox.offer(ReplyFrame.error(frame.idJSON, error))
            // An ended session gets nothing more on this socket, live events included: the
            // reply goes out, then the connection closes (the device logs in again).
            if error.code == AccountErrors.sessionEnded.code {
                logger.notice("realtime session ended; closing the connection")
                mailbox.close()
            }
        } catch {
            logger.error("realtime command failed", metadata: ["type": "\(frame.type)", "error": "\(error)"])
            mailbox.offer(ReplyFrame.error(frame.idJSON, ParleyError(.internalFailure, code: "internal_error", "Something went wrong on our side")))
        }
    }

    /// The first frame on every connection; `iceServers` as `GET /v1/calls/ice-servers` answers,
    /// so a device that woke for a call can answer it through TURN without another request.
    struct Hello: Encodable {
        var type = "hello"
        let userId: String
        let sessionId: String
        let latestSeq: Int64
        let iceServers: [ICEServers.Server]
        let iceServersTtlSeconds: Int
        var frame: String { String(decoding: (try? ReplyFrame.encoder.encode(self)) ?? Data(), as: UTF8.self) }
    }

    struct Pong: Encodable { let serverTime: Date }
    struct SyncRequest: Decodable { let since: Int64; let limit: Int? }
    struct SyncReply: Encodable { let count: Int; let latestSeq: Int64; let more: Bool }
}

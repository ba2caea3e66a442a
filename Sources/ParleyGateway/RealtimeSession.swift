import Foundation
import Tracing
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyAccounts
import ParleyCalls
import ParleyChat
import ParleyCore
import ParleyProtocol
import ParleyRealtime
import Synchronization

/// One device's WebSocket: reads commands in order, answers each, and writes the events its
/// mailbox collects. Replies go through the same mailbox, so one task writes the socket.
struct RealtimeSession {
    let principal: Principal
    let gateway: RealtimeGateway
    let logger: Logger
    /// The socket was opened with a checked access token: its session was open then.
    let sessionCheck = SessionRecheck(confirmedAt: .now)

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async throws {
        let mailbox = Mailbox(userID: principal.userID, sessionID: principal.sessionID, capacity: gateway.settings.mailboxCapacity,
                              byteCapacity: gateway.settings.mailboxBytes)
        // A device that stopped reading would hold the writer forever: past the mailbox's bound
        // the connection goes (it reconnects and syncs), and nobody else waits on it.
        let logger = self.logger
        mailbox.onOverflow {
            logger.notice("realtime connection too far behind; closing it")
            channel.close(promise: nil)
        }
        SocketWriter(channel: channel, mailbox: mailbox).start()
        gateway.events.hub.attach(mailbox)
        await gateway.calls.deviceReconnected(principal.sessionID, user: principal.userID)
        // Friends are told this user is online while the hello goes out: the device does not wait
        // on that (several reads and a write), and its going offline is told only after it.
        let wentOnline = Task { [presence = gateway.presence, user = principal.userID] in await presence?.connected(user) }
        defer { gateway.events.hub.detach(mailbox) }
        let latest = try await gateway.events.latestSeq(of: principal.userID)
        let turn = gateway.iceServers.servers(for: principal.userID)
        mailbox.offer(ServerFrame.hello(.init(userId: principal.userID.rawValue, sessionId: principal.sessionID.rawValue, latestSeq: latest,
                                              iceServers: turn.iceServers, iceServersTtlSeconds: turn.ttlSeconds,
                                              pingIntervalSeconds: gateway.settings.clientPingSeconds)).text)
        // Several nodes: the live events this socket is handed start after the hello's number.
        gateway.events.fanout.connected(principal.userID, after: latest)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The frames are written by the channel's event loop (SocketWriter); this task
                // only waits for the mailbox to close and everything in it to be written.
                await mailbox.finished()
                if mailbox.didOverflow {
                    logger.notice("realtime connection too far behind; closed")
                    try? await outbound.close(.policyViolation, reason: "too far behind: reconnect and sync")
                }
            }
            group.addTask {
                defer { mailbox.close() }
                do {
                    for try await message in inbound.messages(maxSize: gateway.settings.maxFrameBytes) {
                        let refused: Duration?
                        switch message {
                        case .text(let text):
                            refused = await handle(Array(text.utf8), mailbox: mailbox)
                        case .binary:
                            refused = admit(nil, mailbox: mailbox)
                            if refused == nil {
                                mailbox.offer(ServerFrame.failure(to: nil, ParleyError.badRequest("Frames are JSON text", code: "binary_not_supported")).text)
                            }
                        }
                        // Past the user's budget this socket reads nothing more for the
                        // `retryAfter` its refusal said (whole seconds: one refusal a second at
                        // most, however many frames a flooding device sends meanwhile — they
                        // wait, unread, in the connection, and then hold its writes).
                        if let refused { await Self.pause(.seconds(RequestBudget.seconds(refused)), while: channel) }
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
        // The socket closes now; what its closing tells others (a call's device gone, last seen:
        // a moment's wait for other nodes' word on PostgreSQL, then reads and a write) follows.
        let deviceGone = !gateway.events.hub.isConnected(principal.sessionID, of: principal.userID)
        gateway.departures.run { [gateway, principal] in
            if deviceGone { await gateway.calls.deviceDisconnected(principal.sessionID, user: principal.userID) }
            await wentOnline.value
            await gateway.presence?.disconnected(principal.userID)
        }
    }

    /// Waits `wait`, or until the connection goes: a socket that reads nothing meanwhile still
    /// notices its device leaving (and lets the user go offline) within a twentieth of a second.
    static func pause(_ wait: Duration, while channel: any Channel) async {
        let end = ContinuousClock.now + wait
        while channel.isActive, !Task.isCancelled, ContinuousClock.now < end {
            try? await Task.sleep(for: min(.milliseconds(50), end - .now))
        }
    }

    /// Takes one of the user's budget (`RequestBudget`) for a frame: nil when there was one, else
    /// the frame is answered `rate_limited` (to `id`), goes no further, and the wait until the
    /// next share is given back.
    func admit(_ id: FrameID?, mailbox: Mailbox) -> Duration? {
        guard let refusal = gateway.budget.taking(principal.userID) else { return nil }
        let retryAfter = RequestBudget.seconds(refusal.wait)
        if refusal.isToBeTold {
            logger.notice("a user passed their request budget; refusing (told once a minute)", metadata: ["retryAfter": "\(retryAfter)"])
        }
        mailbox.offer(ServerFrame.failure(to: id, .rateLimited(retryAfter: retryAfter)).text)
        return refusal.wait
    }

    /// Answers one command frame if the user's budget admits it; when it does not, the wait
    /// until it would (`admit`). Never throws: every failure is a reply.
    @discardableResult
    func handle(_ bytes: [UInt8], mailbox: Mailbox) async -> Duration? {
        let frame: CommandFrame
        switch CommandFrame.decode(bytes) {
        case .success(let decoded):
            if let wait = admit(decoded.id, mailbox: mailbox) { return wait }
            frame = decoded
        case .failure(let failure):
            if let wait = admit(failure.id, mailbox: mailbox) { return wait }
            mailbox.offer(ServerFrame.failure(to: failure.id, failure.error).text)
            return nil
        }
        // One span per command (a no-op unless tracing is configured); a call's later steps join
        // the trace its invite started (CallService).
        let span = startSpan("realtime \(frame.command.type)", ofKind: .server)
        span.attributes["parley.command"] = frame.command.type
        defer { span.end() }
        do {
            try await ServiceContext.withValue(span.context) {
                // The session may have ended (logout, password reset) since the socket opened:
                // its end closes the socket, and the store is asked again now and then besides.
                if frame.command != .ping, sessionCheck.isDue(every: gateway.settings.sessionRecheckInterval) {
                    _ = try await gateway.accounts.checkSession(principal)
                    sessionCheck.confirm()
                }
                mailbox.offer(try await answer(frame, mailbox: mailbox))
            }
        } catch let error as ParleyError {
            span.attributes["parley.error"] = error.code
            mailbox.offer(ServerFrame.failure(to: frame.id, error).text)
            // An ended session gets nothing more on this socket, live events included: the
            // reply goes out, then the connection closes (the device logs in again).
            if error.code == AccountErrors.sessionEnded.code {
                logger.notice("realtime session ended; closing the connection")
                mailbox.close()
            }
        } catch {
            logger.error("realtime command failed", metadata: ["command": "\(frame.command)", "error": "\(error)"])
            mailbox.offer(ServerFrame.failure(to: frame.id, ParleyError(.internalFailure, code: "internal_error", "Something went wrong on our side")).text)
        }
        return nil
    }

    /// Runs one command and gives its reply's text. A new message's reply is put together around
    /// its `message.new` event as encoded for the members (the same `message`), not encoded again.
    func answer(_ frame: CommandFrame, mailbox: Mailbox) async throws -> String {
        if case .messageSend(let message) = frame.command {
            let sent = try await gateway.chat.sendMessage(principal.userID, to: message.dialogId, Self.outgoing(message))
            if let announced = sent.announced, let text = ServerFrame.replyText(to: frame.id, fieldsJSON: announced.payloadJSON) {
                return text
            }
            return ServerFrame.reply(to: frame.id, .sent(sent.view)).text
        }
        return ServerFrame.reply(to: frame.id, try await execute(frame.command, mailbox: mailbox)).text
    }

    /// Runs one command and says what its reply carries.
    func execute(_ command: ClientCommand, mailbox: Mailbox) async throws -> CommandReply {
        let user = principal.userID, device = principal.sessionID
        let chat = gateway.chat, calls = gateway.calls
        switch command {
        case .ping:
            return .pong(serverTime: Date())
        case .sync(let since, let limit):
            let page = try await gateway.events.events(of: user, since: max(since, 0), limit: min(max(limit ?? 500, 1), 1000))
            // Events meant for every device but this one (answered elsewhere) are skipped.
            let mine = page.events.filter { $0.exceptSession != device }
            // A page may be megabytes (a thousand long messages): it goes as the device reads it,
            // not past the mailbox's byte bound.
            for event in mine {
                await mailbox.room(below: gateway.settings.mailboxBytes / 2)
                mailbox.offer(event.frame)
            }
            return .synced(count: mine.count, latestSeq: page.latest, more: page.lastSeq < page.latest,
                           calls: await calls.liveCalls(of: user, device: device))
        case .messageSend(let message):
            return .sent(try await chat.send(user, to: message.dialogId, Self.outgoing(message)))
        case .messageRead(let dialog, let upTo):
            try await chat.markRead(user, dialog, upTo: upTo)
            return .done
        case .typing(let dialog):
            // One an interval goes out; the rest are answered alike and dropped. An error would
            // only have the device retry (or show) a hint that is stale in seconds.
            guard gateway.typing.admit(user, dialog) else { return .done }
            do {
                try await chat.typing(user, dialog)
            } catch {
                gateway.typing.forget(user, dialog)
                throw error
            }
            return .done
        case .callInvite(let callee, let media, let sdp):
            let invitation = try await calls.invite(from: user, device: device, to: callee, media: media, sdp: sdp)
            return .invited(callId: invitation.callId.rawValue, sdp: invitation.sdp, ended: invitation.ended)
        case .callAccept(let id, let sdp):
            return .answer(sdp: try await calls.accept(id, by: user, device: device, sdp: sdp))
        case .callDecline(let id):
            try await calls.decline(id, by: user)
            return .done
        case .callHangup(let id):
            try await calls.hangup(id, by: user)
            return .done
        case .callMedia(let id, let audio, let video):
            try await calls.setMedia(id, by: user, audio: audio, video: video)
            return .done
        case .callRestart(let id, let sdp):
            return .answer(sdp: try await calls.restartICE(id, by: user, device: device, sdp: sdp))
        }
    }
}

extension RealtimeSession {
    static func outgoing(_ message: OutgoingMessageCommand) -> OutgoingMessage {
        OutgoingMessage(clientMessageID: message.clientMessageId, kind: message.kind, text: message.text, attachmentID: message.attachmentId,
                        forwardMessageID: message.forwardMessageId, location: message.location)
    }
}

/// When a socket last found its session open in the store, and when it asks again: after a
/// share of the interval drawn afresh each time (`spread`, half to all of it), so that sockets
/// opened together — every device reconnecting after a node restarts — do not all ask the store
/// in the same moment, every interval, for as long as they stay. The interval stays the longest
/// a socket goes without asking.
final class SessionRecheck: Sendable {
    private struct State {
        var confirmedAt: ContinuousClock.Instant
        var share: Double
    }

    static let spread: ClosedRange<Double> = 0.5...1
    private let state: Mutex<State>

    init(confirmedAt: ContinuousClock.Instant) {
        state = Mutex(State(confirmedAt: confirmedAt, share: .random(in: Self.spread)))
    }

    func isDue(every interval: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { now - $0.confirmedAt >= interval * $0.share }
    }

    func confirm(now: ContinuousClock.Instant = .now) {
        state.withLock { $0 = State(confirmedAt: now, share: .random(in: Self.spread)) }
    }
}

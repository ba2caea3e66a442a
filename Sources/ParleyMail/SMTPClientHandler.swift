import NIOCore
import NIOSSL
import Synchronization

/// The first failure of a connection, readable after its pipeline is gone: a TLS handshake
/// failure closes the channel, and the command written next must report that, not the closing.
final class SMTPFirstFailure: Sendable {
    private let value = Mutex<SMTPError?>(nil)

    var error: SMTPError? { value.withLock { $0 } }

    func record(_ error: SMTPError) {
        value.withLock { if $0 == nil { $0 = error } }
    }
}

/// What ``SMTPConnection`` writes into the pipeline: optional bytes to send, and the promise the
/// next reply fulfils. A request without bytes just waits for a reply (the greeting).
struct SMTPRequest: Sendable {
    /// Names the step in errors, e.g. `"EHLO"`; never holds arguments.
    var stage: String
    var payload: ByteBuffer?
    var promise: EventLoopPromise<SMTPReply>
}

/// Matches SMTP replies to requests in order, and fails every waiting request when a reply is
/// late, malformed, or the connection ends. The client never pipelines (RFC 2920 is not used),
/// so at most one request is normally waiting.
final class SMTPClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = SMTPRequest
    typealias OutboundOut = ByteBuffer

    private let replyTimeout: TimeAmount
    private var parser = SMTPReplyParser()
    private var unclaimed = CircularBuffer<SMTPReply>()
    private var waiting = CircularBuffer<(stage: String, promise: EventLoopPromise<SMTPReply>)>()
    private var timer: Scheduled<Void>?
    private var failure: SMTPError?

    private let firstFailure: SMTPFirstFailure

    init(replyTimeout: TimeAmount, firstFailure: SMTPFirstFailure) {
        self.replyTimeout = replyTimeout
        self.firstFailure = firstFailure
    }

    /// Whether anything arrived that no request has consumed: after the STARTTLS reply this
    /// must be false (RFC 3207 §6).
    var hasUnconsumedInput: Bool { !unclaimed.isEmpty || parser.hasUnconsumedInput }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        // The write "succeeds" once queued; the reply promise reports everything after that.
        promise?.succeed(())
        if let failure {
            request.promise.fail(failure)
            return
        }
        waiting.append((request.stage, request.promise))
        if let payload = request.payload {
            context.writeAndFlush(wrapOutboundOut(payload), promise: nil)
        }
        deliverUnclaimed()
        rearmTimer(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        do {
            for reply in try parser.feed(buffer.readableBytesView) {
                unclaimed.append(reply)
            }
        } catch {
            failAll(error, context: context)
            return
        }
        deliverUnclaimed()
        rearmTimer(context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        failAll(Self.map(error, stage: waiting.first?.stage ?? "idle"), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let stage = waiting.first?.stage ?? "idle"
        failAll(.connectionLost(stage: stage, reason: "connection closed by server"), context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        let error = failure ?? .connectionLost(stage: waiting.first?.stage ?? "idle", reason: "handler removed")
        while let entry = waiting.popFirst() { entry.promise.fail(error) }
    }

    private func deliverUnclaimed() {
        while !waiting.isEmpty, let reply = unclaimed.popFirst() {
            waiting.removeFirst().promise.succeed(reply)
        }
    }

    private func rearmTimer(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        guard let stage = waiting.first?.stage else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: replyTimeout) {
            self.timer = nil
            self.failAll(.timeout(stage: stage), context: context)
        }
    }

    /// Fails every waiting request (and any later one) with `error`, then closes the channel.
    private func failAll(_ error: SMTPError, context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if failure == nil { failure = error }
        let reported = failure ?? error
        firstFailure.record(reported)
        while let entry = waiting.popFirst() { entry.promise.fail(reported) }
        if context.channel.isActive { context.close(promise: nil) }
    }

    /// Turns pipeline errors (TLS, I/O) into ``SMTPError``.
    static func map(_ error: any Error, stage: String) -> SMTPError {
        switch error {
        case let error as SMTPError:
            return error
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError:
            return .tls(String(describing: error))
        default:
            return .connectionLost(stage: stage, reason: String(describing: error))
        }
    }
}

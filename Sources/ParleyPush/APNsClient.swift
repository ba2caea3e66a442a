import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL
import ParleyCore

/// The APNs provider: sends pushes over HTTP/2 with token-based authentication (a JWT signed by the
/// team's `.p8` key), retries what APNs asks to be retried, and counts everything.
///
/// One per process: its `HTTPClient` keeps one HTTP/2 connection per APNs host and multiplexes
/// pushes over it, as Apple asks. ``send(_:to:)`` never throws; ``shutdown()`` closes it.
public final class APNsClient: PushSender {
    public let configuration: APNsConfiguration
    private let http: HTTPClient
    private let tokens: APNsTokenCache
    private let policy: APNsRetryPolicy
    private let recorder = APNsStatsRecorder()
    private let clock: any WallClock
    private let logger: Logger

    /// The longest error body read (APNs' are a few dozen bytes).
    private static let maxResponseBody = 16 * 1024

    /// Loads the key (and the extra CA, if any); throws when either is unreadable.
    public init(configuration: APNsConfiguration, clock: any WallClock = SystemWallClock(),
                logger: Logger = Logger(label: "parley.push.apns")) throws {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        tokens = try APNsTokenCache(keyFile: configuration.keyFile, keyID: configuration.keyID,
                                    teamID: configuration.teamID, clock: clock)
        policy = APNsRetryPolicy(initialBackoff: configuration.initialBackoff, maxRetryWindow: configuration.maxRetryWindow)

        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
        }
        var client = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(10)),
                                              connectionPool: .init(idleTimeout: .minutes(10)))
        client.httpVersion = .automatic   // over TLS: HTTP/2 by ALPN, which APNs requires
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: client,
                          backgroundActivityLogger: logger)
    }

    /// Sends one push, retrying 429, 5xx and connection errors within the retry window and before
    /// the message's deadline.
    public func send(_ message: PushMessage, to target: PushTarget) async -> PushOutcome {
        recorder.pushStarted()
        let outcome = await deliver(message, to: target)
        let now = clock.now()
        recorder.finished(outcome, latency: now.timeIntervalSince(message.createdAt))
        var metadata: Logger.Metadata = [
            "apns.kind": "\(message.kind.rawValue)", "apns.token": "\(target.token.suffix(8))",
            "apns.environment": "\(target.environment.rawValue)", "apns.outcome": "\(outcome)",
        ]
        if case .delivered = outcome {
            metadata["apns.latency_ms"] = "\(Int(now.timeIntervalSince(message.createdAt) * 1000))"
            logger.debug("push delivered", metadata: metadata)
        } else {
            logger.info("push not delivered", metadata: metadata)
        }
        return outcome
    }

    /// The counters and latency figures so far.
    public func stats() -> APNsStats {
        recorder.snapshot(providerTokensIssued: tokens.issuedCount)
    }

    /// Closes the connections; no sends after this.
    public func shutdown() async {
        do {
            try await http.shutdown()
        } catch {
            logger.warning("APNs client shutdown failed", metadata: ["error": "\(error)"])
        }
    }

    private func deliver(_ message: PushMessage, to original: PushTarget) async -> PushOutcome {
        let startedAt = clock.now()
        if let deadline = message.deadline, startedAt >= deadline { return .expired }
        guard APNsRequest.isWellFormed(token: original.token) else { return .tokenGone(reason: "BadDeviceToken") }
        var target = original
        if target.bundleID.isEmpty { target.bundleID = configuration.bundleID }
        let baseURL = configuration.baseURL(for: target.environment)

        var attempt = 0
        var renewedProviderToken = false
        /// The last reason APNs itself gave for a refusal worth retrying.
        var lastAnswered: String?
        while true {
            let now = clock.now()
            if let deadline = message.deadline, now >= deadline { return .expired }
            let token: APNsToken
            do {
                token = try tokens.current()
            } catch {
                logger.error("cannot sign the APNs provider token", metadata: ["error": "\(error)"])
                return .failed(reason: "ProviderTokenSigningFailed")
            }
            let windowLeft = startedAt.addingTimeInterval(configuration.maxRetryWindow).timeIntervalSince(now)
            var timeout = min(configuration.requestTimeout, windowLeft)
            if let deadline = message.deadline { timeout = min(timeout, deadline.timeIntervalSince(now)) }

            recorder.requestStarted(isRetry: attempt > 0)
            attempt += 1
            let request = APNsRequest(message: message, target: target, baseURL: baseURL, providerToken: token)
            let verdict = await execute(request, timeout: max(timeout, 0.001), attempt: attempt)

            switch verdict {
            case .delivered(let apnsID):
                return .delivered(apnsID: apnsID)
            case .tokenGone(let reason):
                return .tokenGone(reason: reason)
            case .failed(let reason):
                return .failed(reason: reason)
            case .renewProviderToken(let reason):
                tokens.renew(rejected: token)
                // One new token is worth a try; a second refusal means the key, key id or team is wrong.
                if renewedProviderToken { return .failed(reason: reason) }
                renewedProviderToken = true
            case .retry(var reason, let retryAfter):
                let ranOutOfWindow = windowLeft < configuration.requestTimeout && clock.now().timeIntervalSince(now) >= windowLeft - 0.05
                if reason == Self.connectionError, ranOutOfWindow, let lastAnswered {
                    // This attempt had only what was left of the retry window and used all of it:
                    // the window ended, not the connection; the push failed for APNs' last reason.
                    reason = lastAnswered
                } else if reason != Self.connectionError {
                    lastAnswered = reason
                }
                let decision = policy.decide(retry: attempt, retryAfter: retryAfter, jitter: .random(in: 0...1),
                                             startedAt: startedAt, now: clock.now(), deadline: message.deadline)
                switch decision {
                case .expire:
                    return .expired
                case .giveUp:
                    return .failed(reason: reason)
                case .retry(let delay):
                    logger.debug("retrying push", metadata: [
                        "apns.reason": "\(reason)", "apns.attempt": "\(attempt)", "apns.delay_ms": "\(Int(delay * 1000))",
                    ])
                    do {
                        try await Task.sleep(for: .seconds(delay))
                    } catch {
                        return .failed(reason: "Cancelled")
                    }
                }
            }
        }
    }

    /// The reason recorded when a request got no answer (a connection error or a timeout).
    static let connectionError = "ConnectionError"

    /// One request; a connection error or timeout is a verdict like any other (retry).
    private func execute(_ request: APNsRequest, timeout: TimeInterval, attempt: Int) async -> APNsVerdict {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .POST
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        do {
            let response = try await http.execute(outgoing, timeout: .milliseconds(Int64(timeout * 1000)), logger: logger)
            let body = try await response.body.collect(upTo: Self.maxResponseBody)
            let answer = APNsResponse(status: Int(response.status.code), apnsID: response.headers.first(name: "apns-id"),
                                      body: Data(body.readableBytesView), retryAfter: response.headers.first(name: "retry-after"),
                                      now: clock.now())
            if answer.status != 200 {
                logger.debug("APNs refused a push", metadata: [
                    "apns.status": "\(answer.status)", "apns.reason": "\(answer.reason ?? "")",
                    "apns.id": "\(answer.apnsID ?? "")", "apns.attempt": "\(attempt)",
                ])
            }
            return answer.verdict
        } catch {
            if Task.isCancelled { return .failed(reason: "Cancelled") }
            logger.info("APNs request failed", metadata: ["error": "\(error)", "apns.attempt": "\(attempt)"])
            return .retry(reason: Self.connectionError, after: nil)
        }
    }
}

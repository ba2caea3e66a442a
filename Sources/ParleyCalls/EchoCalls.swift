import Foundation
import Logging
import ParleyCore
import ParleyRelay
import Synchronization

/// The echo test call (check your microphone and camera before calling): the relay sends a
/// device's own audio and video back to it. It ends when asked, or by itself after a minute.
public final class EchoCalls: Sendable {
    struct Echo: Sendable {
        let owner: UserID
        let leg: LegID
        let timeout: Task<Void, Never>
    }

    let relay: MediaRelay
    let lifetime: Duration
    let logger: Logger
    private let calls = Mutex<[CallID: Echo]>([:])

    public init(relay: MediaRelay, lifetime: Duration = .seconds(60), logger: Logger) {
        self.relay = relay
        self.lifetime = lifetime
        self.logger = logger
    }

    /// Answers the device's offer and loops its media back. One echo call per user: a new one
    /// ends the user's earlier one (an app reopening its "test my camera" screen, or one that
    /// crashed mid-test and lost the call id), so one user holds one echo leg at most.
    public func start(for user: UserID, offer: String) async throws -> (CallID, answer: String) {
        let earlier = calls.withLock { calls in calls.filter { $0.value.owner == user }.map(\.key) }
        for call in earlier { await finish(call, reason: "replaced") }
        let id = CallID.generate()
        let (leg, answer) = try await loopBack(offer: offer, owner: "echo:\(id.rawValue)")
        let lifetime = self.lifetime
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: lifetime)
            guard !Task.isCancelled else { return }
            await self?.finish(id, reason: "timeout")
        }
        // Two starts at once by one user: the later to get here ends the other.
        let raced = calls.withLock { calls -> [CallID] in
            let raced = calls.filter { $0.value.owner == user }.map(\.key)
            calls[id] = Echo(owner: user, leg: leg, timeout: timeout)
            return raced
        }
        for call in raced { await finish(call, reason: "replaced") }
        logger.info("echo call started", metadata: ["call": "\(id)", "user": "\(user)"])
        return (id, answer)
    }

    func loopBack(offer: String, owner: String) async throws(ParleyError) -> (LegID, String) {
        do {
            let created = try await relay.createLeg(offer: offer, owner: owner)
            try await relay.echo(created.0)
            return (created.0, created.answerSDP)
        } catch {
            throw error.parleyError
        }
    }

    /// Ends the caller's own echo call.
    public func end(_ id: CallID, by user: UserID) async throws {
        guard calls.withLock({ $0[id]?.owner }) == user else {
            throw ParleyError(.notFound, code: "call_not_found", "No such call")
        }
        await finish(id, reason: "hangup")
    }

    func finish(_ id: CallID, reason: String) async {
        guard let echo = calls.withLock({ $0.removeValue(forKey: id) }) else { return }
        echo.timeout.cancel()
        await relay.release(echo.leg)
        logger.info("echo call ended", metadata: ["call": "\(id)", "reason": "\(reason)"])
    }

    public var activeCount: Int { calls.withLock { $0.count } }
}

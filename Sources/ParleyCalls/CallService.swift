import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyRelay
import Tracing

/// Carries out what the `CallBook` decides: makes, pairs and releases relay legs, tells devices,
/// runs the timers and writes the records. It decides nothing itself: every rule is in the book.
/// An actor: the book changes one step at a time; after each `await` it is read again.
public actor CallService {
    let legs: any CallLegs
    let permissions: any CallPermissions
    let recorder: any CallRecorder
    let events: any EventPublisher
    let timers: any CallTimers
    /// The other nodes' calls, and how a command reaches the node holding its call.
    let network: any CallNetwork
    let logger: Logger
    var book: CallBook
    var running: [CallBook.Timer: CallTimerHandle] = [:]
    /// Calls each user may place per minute (`limits.callInvitesPerMinute`).
    let inviteLimit: any RateCounter
    /// ICE restarts each user may ask for per minute (`limits.iceRestartsPerMinute`): each one
    /// parses an offer and re-keys a leg's ICE, so a flood is refused before that work.
    let restartLimit: any RateCounter
    /// `call.media` per user and minute (``mediaChangesPerMinute``).
    let mediaLimit: any RateCounter
    /// Commands each user may send per minute about calls held on other nodes (see `holder`).
    let elsewhereLimit = RateLimiter(limit: CallService.commandsElsewherePerMinute, window: 60)
    public static let commandsElsewherePerMinute = 120
    let metrics: CallMetrics
    /// When each call's invite arrived, and the setup steps already timed: what
    /// `parley_call_setup_seconds` measures from. Gone when the call's record is written.
    var setup: [CallID: CallSetup] = [:]

    public init(legs: any CallLegs, permissions: any CallPermissions, recorder: any CallRecorder, events: any EventPublisher,
                timers: any CallTimers, settings: CallBook.Settings, invitesPerMinute: Int = 30, restartsPerMinute: Int = 20,
                metrics: CallMetrics = .none, network: any CallNetwork = LocalCallNetwork(), counters: RateCounters = RateLimiter.inMemory,
                logger: Logger) {
        self.metrics = metrics
        self.network = network
        self.inviteLimit = counters("call_invites", max(invitesPerMinute, 1), 60)
        self.restartLimit = counters("ice_restarts", max(restartsPerMinute, 1), 60)
        self.mediaLimit = counters("call_media", Self.mediaChangesPerMinute, 60)
        self.legs = legs
        self.permissions = permissions
        self.recorder = recorder
        self.events = events
        self.timers = timers
        self.logger = logger
        self.book = CallBook(settings: settings)
    }

    /// What `call.invite` answers: the call's id and the relay's answer, or how it ended at once.
    public struct Invitation: Sendable, Equatable {
        public let callId: CallID
        public let sdp: String?
        public let ended: CallEndReason?
    }

    /// Places a call (friends only). A callee in another call makes it end `busy` at once; a
    /// callee whose own call to this caller is ringing, or still being placed, gets that call
    /// answered instead (glare: two invites that cross become one call) — on whichever node.
    public func invite(from caller: UserID, device: SessionID, to callee: UserID, media: CallMedia, sdp: String) async throws -> Invitation {
        guard caller != callee else { throw CallErrors.callYourself }
        try await inviteLimit.admitting(caller.rawValue, now: timers.now())
        try await permissions.requireFriendship(from: caller, to: callee)
        let id = CallID.generate()
        let invited = CallSetup(invited: timers.now())
        // Across nodes, both people are reserved in the shared directory first.
        switch try await network.reserve(CallParties(id: id, caller: caller, callee: callee, media: media, startedAt: invited.invited)) {
        case .reserved, .here:
            break
        case .callerBusy:
            throw CallErrors.alreadyInCall
        case .calleeBusy:
            await perform(book.busy(id, from: caller, device: device, to: callee, media: media, at: timers.now()))
            return Invitation(callId: id, sdp: nil, ended: .busy)
        case .crossing(let crossing, let node):
            logger.info("calls crossed; answering the other on its node", metadata: ["call": "\(crossing)", "node": "\(node)"])
            let answer = try await network.send(.accept(crossing, user: caller, device: device, sdp: sdp), to: node).sdp()
            return Invitation(callId: crossing, sdp: answer, ended: nil)
        }
        let placement: CallBook.Placement
        do {
            placement = try book.invite(id, from: caller, device: device, to: callee, media: media, at: timers.now())
        } catch {
            await network.release(id)
            throw error
        }
        if placement != .placed { await network.release(id) }
        switch placement {
        case .glare(let crossing):
            logger.info("calls crossed; answering the other", metadata: ["call": "\(crossing)"])
            let answer = try await accept(crossing, by: caller, device: device, sdp: sdp)
            return Invitation(callId: crossing, sdp: answer, ended: nil)
        case .busy(let actions):
            await perform(actions)
            return Invitation(callId: id, sdp: nil, ended: .busy)
        case .placed:
            setup[id] = invited
            let created: (LegID, answer: String)
            do {
                created = try await withSpan("relay leg") { span in
                    span.attributes["parley.call"] = id.rawValue
                    return try await legs.makeLeg(offer: sdp, call: id)
                }
            } catch {
                await perform(book.legFailed(id, at: timers.now()))
                if !book.holds(id) { await network.release(id) }
                throw error
            }
            await perform(book.legReady(id, .caller, created.0, at: timers.now()))
            logger.info("call placed", metadata: ["call": "\(id)", "media": "\(media.rawValue)"])
            return Invitation(callId: id, sdp: created.answer, ended: nil)
        }
    }

    /// The first of the callee's devices to answer gets the call.
    public func accept(_ id: CallID, by user: UserID, device: SessionID, sdp: String) async throws -> String {
        if let node = try await holder(of: id, for: user) { return try await network.send(.accept(id, user: user, device: device, sdp: sdp), to: node).sdp() }
        return try await acceptHere(id, by: user, device: device, sdp: sdp)
    }

    func acceptHere(_ id: CallID, by user: UserID, device: SessionID, sdp: String) async throws -> String {
        try book.checkAccept(id, by: user, device: device)
        // The callee's leg joins the trace the invite started, so one call is one trace.
        let (leg, answer) = try await withSpan("relay leg", context: setup[id]?.trace ?? .current ?? .topLevel) { span in
            span.attributes["parley.call"] = id.rawValue
            return try await legs.makeLeg(offer: sdp, call: id)
        }
        let actions: [CallBook.Action]
        do {
            actions = try book.accept(id, by: user, device: device, leg: leg, at: timers.now())
        } catch {
            await legs.releaseLeg(leg)   // hung up or answered elsewhere while the leg was made
            throw error
        }
        await perform(actions)
        await network.answered(id, at: timers.now())
        return answer
    }

    public func decline(_ id: CallID, by user: UserID) async throws {
        if let node = try await holder(of: id, for: user) { return try await network.send(.decline(id, user: user), to: node).check() }
        await perform(try book.decline(id, by: user, at: timers.now()))
    }

    public func hangup(_ id: CallID, by user: UserID) async throws {
        if let node = try await holder(of: id, for: user) { return try await network.send(.hangup(id, user: user), to: node).check() }
        await perform(try book.hangup(id, by: user, at: timers.now()))
    }

    /// Microphone and camera changes one user may pass on per minute: a person toggles a few
    /// times a call, while each change is an event stored for the other side.
    public static let mediaChangesPerMinute = 60

    /// Microphone and camera state, passed to the other side.
    public func setMedia(_ id: CallID, by user: UserID, audio: Bool, video: Bool) async throws {
        try await mediaLimit.admitting(user.rawValue, now: timers.now())
        if let node = try await holder(of: id, for: user) { return try await network.send(.media(id, user: user, audio: audio, video: video), to: node).check() }
        await perform(try book.media(id, by: user, audio: audio, video: video))
    }

    /// An ICE restart after a network switch: the device's new offer (new ICE credentials) for
    /// its own leg of a live call, and the relay's answer. The other side sees no change.
    public func restartICE(_ id: CallID, by user: UserID, device: SessionID, sdp: String) async throws -> String {
        if let node = try await holder(of: id, for: user) { return try await network.send(.restart(id, user: user, device: device, sdp: sdp), to: node).sdp() }
        return try await restartHere(id, by: user, device: device, sdp: sdp)
    }

    func restartHere(_ id: CallID, by user: UserID, device: SessionID, sdp: String) async throws -> String {
        let leg = try book.leg(of: id, user: user, device: device)
        try await restartLimit.admitting(user.rawValue, now: timers.now())
        let answer = try await legs.restartLeg(leg, offer: sdp)
        logger.info("ICE restarted", metadata: ["call": "\(id)", "leg": "\(leg)"])
        return answer
    }

    /// The live calls of a device (for `sync` after a reconnect), on this node and the others.
    public func liveCalls(of user: UserID, device: SessionID) async -> [CommandReply.LiveCall] {
        var calls = book.liveCalls(of: user, device: device)
        for node in Set(await network.callsElsewhere(of: user).map(\.node)) {
            // A node that does not answer leaves its calls out of this sync; if it stopped, its
            // calls end `connection_lost` once another node claims them (SharedCallNetwork).
            do {
                if case .liveCalls(let there) = try await network.send(.liveCalls(user, device: device), to: node) { calls += there }
            } catch {
                logger.warning("live calls: node did not answer", metadata: [
                    "node": "\(node)", "user": "\(user)", "error": "\(String(reflecting: error))"])
            }
        }
        return calls
    }

    /// Carries out the book's actions, in order, to the end: in a task of its own, so that a
    /// command whose socket closes meanwhile (its task cancelled) still records and announces
    /// what the book already decided.
    func perform(_ actions: [CallBook.Action]) async {
        guard !actions.isEmpty else { return }
        await Task { await carryOut(actions) }.value
    }

    func carryOut(_ actions: [CallBook.Action]) async {
        for action in actions {
            switch action {
            case .pairLegs(let a, let b):
                await legs.pairLegs(a, b)
                timeSetup(.accepted, of: a)
            case .releaseLeg(let leg):
                await legs.releaseLeg(leg)
            case .startTimer(let timer, let delay):
                running[timer]?.cancel()
                running[timer] = timers.schedule(after: delay) { [weak self] in await self?.fire(timer) }
            case .cancelTimer(let timer):
                running.removeValue(forKey: timer)?.cancel()
            case .announce(let event, let users, let except):
                await events.publish(event, to: users, exceptSession: except)
                if case .callIncoming(let incoming) = event { timeSetup(.incoming, of: CallID(rawValue: incoming.callId)) }
            case .record(let call):
                await network.release(call.id)
                await record(call)
                setup[call.id] = nil
                metrics.ended(call.answered ? "answered" : call.reason.rawValue)
            }
        }
    }

    /// Times a setup step of a call once, from its invite: a histogram sample, and a span from
    /// the invite to the step in the call's trace.
    func timeSetup(_ step: CallMetrics.Step, of id: CallID) {
        guard let started = setup[id], !started.timed.contains(step) else { return }
        setup[id]?.timed.insert(step)
        metrics.setup(step, took: .seconds(max(0, timers.now().timeIntervalSince(started.invited))))
        let span = startSpan("call \(step.rawValue)", context: started.trace, at: started.tracerStart)
        span.attributes["parley.call"] = id.rawValue
        span.end()
    }

    func timeSetup(_ step: CallMetrics.Step, of leg: LegID) {
        guard let id = book.call(of: leg) else { return }
        timeSetup(step, of: id)
    }

    func fire(_ timer: CallBook.Timer) async {
        running[timer] = nil
        await perform(book.timerFired(timer, at: timers.now()))
    }

    func record(_ call: CallHistoryRecord) async {
        do {
            try await recorder.record(call)
        } catch {
            logger.error("call record not written", metadata: ["call": "\(call.id)", "error": "\(error)"])
        }
        logger.info("call ended", metadata: ["call": "\(call.id)", "reason": "\(call.reason.rawValue)", "duration": "\(call.durationSeconds)"])
    }
}

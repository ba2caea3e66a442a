import Foundation
import Logging
import ParleyChat
import ParleyCore
import ParleyFriends
import ParleyRelay

/// Carries out what each call's state machine decides: tells devices, creates, pairs and
/// releases relay legs, runs the ring and reconnect timers, and writes the record.
/// An actor: every call changes one step at a time; after each `await` the state is re-read.
public actor CallService {
    public struct Settings: Sendable {
        public var ringTimeout: Duration
        /// How long a device that dropped off the realtime socket keeps its call.
        public var reconnectGrace: Duration

        public init(ringTimeout: Duration = .seconds(45), reconnectGrace: Duration = .seconds(20)) {
            self.ringTimeout = ringTimeout
            self.reconnectGrace = reconnectGrace
        }
    }

    struct Entry {
        var machine: CallStateMachine
        var callerLeg: LegID
        var calleeLeg: LegID?
        var ringTimer: Task<Void, Never>?
        var graceTimers: [SessionID: Task<Void, Never>] = [:]
    }

    let relay: MediaRelay
    let friends: FriendService
    let chat: ChatService
    let events: any EventPublisher
    let store: SQLCallStore
    let clock: any WallClock
    let settings: Settings
    let logger: Logger
    var calls: [CallID: Entry] = [:]
    /// Calls that ended lately, so late commands hear `call_ended` rather than `call_not_found`.
    var recentlyEnded: [CallID: (users: Set<UserID>, at: Date)] = [:]
    var endedCount = 0

    public init(relay: MediaRelay, friends: FriendService, chat: ChatService, events: any EventPublisher, store: SQLCallStore,
                clock: any WallClock, settings: Settings, logger: Logger) {
        self.relay = relay
        self.friends = friends
        self.chat = chat
        self.events = events
        self.store = store
        self.clock = clock
        self.settings = settings
        self.logger = logger
    }

    /// What `call.invite` answers.
    public struct Invitation: Sendable, Encodable {
        public let callId: String
        public let sdp: String?
        /// Set when the call ended at once (`busy`).
        public let ended: CallEndReason?
    }

    /// Places a call. Friends only; a callee already in a call makes it end `busy` at once; a
    /// callee whose own call to this caller is still ringing gets it answered (glare).
    public func invite(from caller: UserID, device: SessionID, to callee: UserID, media: CallMedia, sdp: String) async throws -> Invitation {
        guard caller != callee else { throw CallErrors.callYourself }
        try await friends.requireFriendship(from: caller, to: callee)
        if let glare = calls.first(where: { $0.value.machine.caller == callee && $0.value.machine.callee == caller && $0.value.machine.phase == .ringing }) {
            let answer = try await accept(glare.key, by: caller, device: device, sdp: sdp)
            return Invitation(callId: glare.key.rawValue, sdp: answer, ended: nil)
        }
        if activeCall(of: caller) != nil { throw CallErrors.alreadyInCall }
        let id = CallID.generate()
        let now = clock.now()
        if activeCall(of: callee) != nil {
            var machine = CallStateMachine(id: id, caller: caller, callerDevice: device, callee: callee, media: media, startedAt: now)
            // Never rang: ended busy for the caller, a missed call for the callee.
            _ = try? machine.handle(.hangup(user: caller), at: now)
            await finish(machine, reason: .busy, answered: false, duration: 0)
            remember(machine)
            return Invitation(callId: id.rawValue, sdp: nil, ended: .busy)
        }
        let (leg, answer) = try await createLeg(offer: sdp, owner: id)
        if activeCall(of: caller) != nil || activeCall(of: callee) != nil {   // someone else was faster meanwhile
            await relay.release(leg)
            throw CallErrors.alreadyInCall
        }
        var entry = Entry(machine: CallStateMachine(id: id, caller: caller, callerDevice: device, callee: callee, media: media, startedAt: now),
                          callerLeg: leg)
        entry.ringTimer = timer(after: settings.ringTimeout) { try await $0.apply(.ringTimeout, to: id) }
        calls[id] = entry
        await events.publish(type: "call.incoming", payload: Incoming(callId: id.rawValue, from: caller.rawValue, media: media), to: [callee])
        logger.info("call ringing", metadata: ["call": "\(id)", "media": "\(media.rawValue)"])
        return Invitation(callId: id.rawValue, sdp: answer, ended: nil)
    }

    /// The first of the callee's devices to answer gets the call.
    public func accept(_ id: CallID, by user: UserID, device: SessionID, sdp: String) async throws -> String {
        let entry = try liveCall(id, for: user)
        try entry.machine.check(.accept(user: user, device: device))
        let (leg, answer) = try await createLeg(offer: sdp, owner: id)
        guard let current = calls[id], (try? current.machine.check(.accept(user: user, device: device))) != nil else {
            await relay.release(leg)   // hung up or answered elsewhere while the leg was made
            throw calls[id] == nil ? CallErrors.callEnded : CallErrors.alreadyAnswered
        }
        calls[id]?.calleeLeg = leg
        try await apply(.accept(user: user, device: device), to: id)
        return answer
    }

    public func decline(_ id: CallID, by user: UserID) async throws {
        _ = try liveCall(id, for: user)
        try await apply(.decline(user: user), to: id)
    }

    public func hangup(_ id: CallID, by user: UserID) async throws {
        _ = try liveCall(id, for: user)
        try await apply(.hangup(user: user), to: id)
    }

    /// Microphone and camera state, passed to the other side.
    public func setMedia(_ id: CallID, by user: UserID, audio: Bool, video: Bool) async throws {
        let machine = try liveCall(id, for: user).machine
        let other = user == machine.caller ? machine.callee : machine.caller
        await events.publish(type: "call.media", payload: MediaState(callId: id.rawValue, from: user.rawValue, audio: audio, video: video), to: [other])
    }

    /// Applies an event and carries out the actions.
    func apply(_ event: CallStateMachine.Event, to id: CallID) async throws {
        guard var entry = calls[id] else { throw CallErrors.callEnded }
        let actions = try entry.machine.handle(event, at: clock.now())
        calls[id] = entry
        for action in actions { await perform(action, entry: entry) }
        if entry.machine.isEnded {
            for timer in entry.graceTimers.values { timer.cancel() }
            calls[id] = nil
            remember(entry.machine)
        }
    }

    func perform(_ action: CallStateMachine.Action, entry: Entry) async {
        let machine = entry.machine, id = machine.id.rawValue
        switch action {
        case .cancelRingTimer:
            entry.ringTimer?.cancel()
        case .pairLegs:
            if let calleeLeg = entry.calleeLeg { try? await relay.pair(entry.callerLeg, calleeLeg) }
        case .releaseLegs:
            await relay.release(entry.callerLeg)
            if let calleeLeg = entry.calleeLeg { await relay.release(calleeLeg) }
        case .announceAccepted:
            await events.publish(type: "call.accepted", payload: CallRef(callId: id), to: [machine.caller, machine.callee])
        case .announceAnsweredElsewhere(let device):
            await events.publish(type: "call.ended", payload: Ended(callId: id, reason: .answeredElsewhere, durationSeconds: 0),
                                 to: [machine.callee], exceptSession: device)
        case .announceEnded(let reason, let duration):
            await events.publish(type: "call.ended", payload: Ended(callId: id, reason: reason, durationSeconds: duration),
                                 to: [machine.caller, machine.callee])
        case .record(let reason, let answered, let duration):
            await record(machine, reason: reason, answered: answered, duration: duration)
        }
    }

    /// A call that ended without ringing (busy): told, recorded.
    func finish(_ machine: CallStateMachine, reason: CallEndReason, answered: Bool, duration: Int) async {
        await events.publish(type: "call.ended", payload: Ended(callId: machine.id.rawValue, reason: reason, durationSeconds: duration),
                             to: [machine.caller])
        await record(machine, reason: reason, answered: answered, duration: duration)
    }

    func record(_ machine: CallStateMachine, reason: CallEndReason, answered: Bool, duration: Int) async {
        endedCount += 1
        let history = CallHistoryRecord(id: machine.id, caller: machine.caller, callee: machine.callee, media: machine.media,
                                        reason: reason, answered: answered, startedAt: machine.startedAt, durationSeconds: duration)
        do {
            try await store.insert(history)
            _ = try await chat.recordCall(
                CallRecord(callId: machine.id.rawValue, media: machine.media.rawValue, outcome: answered ? "answered" : reason.rawValue,
                           durationSeconds: duration),
                caller: machine.caller, callee: machine.callee)
        } catch {
            logger.error("call record not written", metadata: ["call": "\(machine.id)", "error": "\(error)"])
        }
        logger.info("call ended", metadata: ["call": "\(machine.id)", "reason": "\(reason.rawValue)", "duration": "\(duration)"])
    }

    func createLeg(offer: String, owner: CallID) async throws(ParleyError) -> (LegID, String) {
        do {
            let created = try await relay.createLeg(offer: offer, owner: owner.rawValue)
            return (created.0, created.answerSDP)
        } catch {
            throw error.parleyError
        }
    }

    func remember(_ machine: CallStateMachine) {
        let now = clock.now()
        recentlyEnded = recentlyEnded.filter { now.timeIntervalSince($0.value.at) < 600 }
        recentlyEnded[machine.id] = ([machine.caller, machine.callee], now)
    }

    /// The live call `user` takes part in, or the error a command about it deserves.
    func liveCall(_ id: CallID, for user: UserID) throws(ParleyError) -> Entry {
        if let entry = calls[id], entry.machine.involves(user) { return entry }
        if recentlyEnded[id]?.users.contains(user) == true { throw CallErrors.callEnded }
        throw CallErrors.notFound
    }

    func activeCall(of user: UserID) -> CallID? {
        calls.first { $0.value.machine.involves(user) }?.key
    }

    nonisolated func timer(after delay: Duration, _ fire: @escaping @Sendable (CallService) async throws -> Void) -> Task<Void, Never> {
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled, let self else { return }
            // Fire in a task of its own: the actions it causes cancel this timer, and must not
            // be cancelled with it.
            await Task { try? await fire(self) }.value
        }
    }
}

struct Incoming: Encodable, Sendable { let callId: String; let from: String; let media: CallMedia }
struct CallRef: Encodable, Sendable { let callId: String }
struct Ended: Encodable, Sendable { let callId: String; let reason: CallEndReason; let durationSeconds: Int }
struct MediaState: Encodable, Sendable { let callId: String; let from: String; let audio: Bool; let video: Bool }

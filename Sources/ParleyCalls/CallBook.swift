import Foundation
import ParleyCore
import ParleyProtocol
import ParleyRelay

/// Every live call on this node as one pure state machine: the rules that span calls (busy,
/// glare, already in a call), each call's own rules (`CallStateMachine`), its relay legs and its
/// timers. Events in, actions out; no I/O and no clock of its own: the time comes with each
/// event, timers are actions (`startTimer` / `cancelTimer`) and come back as `timerFired`, so a
/// test drives every timing by hand. `CallService` carries the actions out.
///
/// A call is reserved the moment it is placed, before its relay leg exists: two invites that
/// cross in flight find each other (glare) and become one call, and a third party sees both
/// people busy.
public struct CallBook: Sendable {
    public struct Settings: Sendable, Equatable {
        public var ringTimeout: Duration
        /// How long a device that dropped off the realtime socket keeps its call.
        public var reconnectGrace: Duration
        /// How long a call whose leg the client closed cleanly waits for the `call.hangup` that
        /// comes with it (an app closes its peer connection as it sends the hangup, and the UDP
        /// close can overtake the WebSocket command).
        public var closeGrace: Duration

        public init(ringTimeout: Duration = .seconds(45), reconnectGrace: Duration = .seconds(20), closeGrace: Duration = .seconds(2)) {
            self.ringTimeout = ringTimeout
            self.reconnectGrace = reconnectGrace
            self.closeGrace = closeGrace
        }
    }

    public enum Side: Sendable, Equatable { case caller, callee }

    public enum Timer: Hashable, Sendable {
        /// Unanswered for `ringTimeout`: `no_answer`.
        case ring(CallID)
        /// A device in the call left the realtime socket and has not come back.
        case grace(CallID, SessionID)
        /// A leg's client closed it (DTLS close_notify) and its hangup has not come.
        case closed(CallID)
    }

    public enum Action: Sendable, Equatable {
        case pairLegs(LegID, LegID)
        case releaseLeg(LegID)
        case startTimer(Timer, after: Duration)
        case cancelTimer(Timer)
        case announce(RealtimeEvent, to: [UserID], except: SessionID?)
        /// The record in the pair's dialog and in both call histories.
        case record(CallHistoryRecord)
    }

    /// What placing a call comes to.
    public enum Placement: Sendable, Equatable {
        /// Reserved: make the caller's leg, then `legReady` (or `legFailed`).
        case placed
        /// The callee's own call to this caller is ringing or being placed: answer that one instead.
        case glare(CallID)
        /// The callee is in another call: ended `busy` at once (announce and record).
        case busy([Action])
    }

    struct Entry: Sendable, Equatable {
        var machine: CallStateMachine
        var callerLeg: LegID?
        var calleeLeg: LegID?
        /// `call.incoming` went out (the caller's leg is ready).
        var rang = false
        var paired = false
        var timers: Set<Timer> = []
    }

    public let settings: Settings
    var calls: [CallID: Entry] = [:]
    /// Calls that ended lately, so late commands hear `call_ended` rather than `call_not_found`.
    var recentlyEnded: [CallID: (users: Set<UserID>, at: Date)] = [:]
    public private(set) var endedCount = 0

    public init(settings: Settings) { self.settings = settings }

    // MARK: Commands

    /// A call from `caller` (on `device`) to `callee`, who must be friends (checked before).
    public mutating func invite(_ id: CallID, from caller: UserID, device: SessionID, to callee: UserID, media: CallMedia,
                                at now: Date) throws(ParleyError) -> Placement {
        guard caller != callee else { throw CallErrors.callYourself }
        if let crossing = calls.first(where: { $0.value.machine.caller == callee && $0.value.machine.callee == caller
                                               && $0.value.machine.phase == .ringing }) {
            return .glare(crossing.key)
        }
        if liveCall(of: caller) != nil { throw CallErrors.alreadyInCall }
        if liveCall(of: callee) != nil { return .busy(busy(id, from: caller, device: device, to: callee, media: media, at: now)) }
        calls[id] = Entry(machine: CallStateMachine(id: id, caller: caller, callerDevice: device, callee: callee, media: media, startedAt: now))
        return .placed
    }

    /// A call to someone in another call (here or on another node): it never rings; it ends
    /// busy for the caller and is a missed call for the callee.
    public mutating func busy(_ id: CallID, from caller: UserID, device: SessionID, to callee: UserID, media: CallMedia,
                              at now: Date) -> [Action] {
        var machine = CallStateMachine(id: id, caller: caller, callerDevice: device, callee: callee, media: media, startedAt: now)
        _ = try? machine.handle(.hangup(user: caller), at: now)
        endedCount += 1
        remember(machine, at: now)
        return [
            .record(Self.history(machine, reason: .busy, answered: false, duration: 0)),
            .announce(.callEnded(CallEndedEvent(callId: id.rawValue, reason: .busy, durationSeconds: 0)), to: [caller], except: nil),
        ]
    }

    /// Whether `user` on `device` may answer now (checked before the callee's leg is made).
    public func checkAccept(_ id: CallID, by user: UserID, device: SessionID) throws(ParleyError) {
        try live(id, for: user).machine.check(.accept(user: user, device: device))
    }

    /// The callee answers on `device`, whose relay leg is `leg`. Refused (nothing changes) when
    /// the call ended or was answered meanwhile: the caller releases the leg.
    public mutating func accept(_ id: CallID, by user: UserID, device: SessionID, leg: LegID, at now: Date) throws(ParleyError) -> [Action] {
        var entry = try live(id, for: user)
        let steps = try entry.machine.handle(.accept(user: user, device: device), at: now)
        entry.calleeLeg = leg
        return commit(entry, steps, at: now)
    }

    public mutating func decline(_ id: CallID, by user: UserID, at now: Date) throws(ParleyError) -> [Action] {
        var entry = try live(id, for: user)
        let steps = try entry.machine.handle(.decline(user: user), at: now)
        return commit(entry, steps, at: now)
    }

    public mutating func hangup(_ id: CallID, by user: UserID, at now: Date) throws(ParleyError) -> [Action] {
        var entry = try live(id, for: user)
        let steps = try entry.machine.handle(.hangup(user: user), at: now)
        return commit(entry, steps, at: now)
    }

    /// Microphone and camera state, passed to the other side.
    public func media(_ id: CallID, by user: UserID, audio: Bool, video: Bool) throws(ParleyError) -> [Action] {
        let machine = try live(id, for: user).machine
        let other = user == machine.caller ? machine.callee : machine.caller
        return [.announce(.callMedia(CallMediaEvent(callId: id.rawValue, from: user.rawValue, audio: audio, video: video)),
                          to: [other], except: nil)]
    }

    /// The relay leg of `device` in call `id` (for an ICE restart): the caller's device, or the
    /// callee's device that answered.
    public func leg(of id: CallID, user: UserID, device: SessionID) throws(ParleyError) -> LegID {
        let entry = try live(id, for: user)
        if device == entry.machine.callerDevice, let leg = entry.callerLeg { return leg }
        if case .active(let answeredBy, _) = entry.machine.phase, device == answeredBy, let leg = entry.calleeLeg { return leg }
        throw CallErrors.notInCall
    }

    /// The call a relay leg belongs to, while it is in the book.
    public func call(of leg: LegID) -> CallID? {
        calls.first { $0.value.callerLeg == leg || $0.value.calleeLeg == leg }?.key
    }

    // MARK: Legs, timers, devices

    /// A leg that was being made is ready. The caller's: the callee's devices ring. A leg for a
    /// call that ended meanwhile goes back to the relay.
    public mutating func legReady(_ id: CallID, _ side: Side, _ leg: LegID, at now: Date) -> [Action] {
        guard var entry = calls[id] else { return [.releaseLeg(leg)] }
        var actions: [Action] = []
        switch side {
        case .caller:
            entry.callerLeg = leg
            if entry.machine.phase == .ringing, !entry.rang {
                entry.rang = true
                entry.timers.insert(.ring(id))
                actions += [
                    .startTimer(.ring(id), after: settings.ringTimeout),
                    .announce(.callIncoming(CallIncomingEvent(callId: id.rawValue, from: entry.machine.caller.rawValue,
                                                              media: entry.machine.media)),
                              to: [entry.machine.callee], except: nil),
                ]
            }
        case .callee:
            entry.calleeLeg = leg
        }
        actions += pairIfReady(&entry)
        calls[id] = entry
        return actions
    }

    /// The caller's leg could not be made (the offer was refused): the call never rang; it goes
    /// without a record, unless it was answered meanwhile (glare), which ends it for the callee.
    public mutating func legFailed(_ id: CallID, at now: Date) -> [Action] {
        guard var entry = calls[id] else { return [] }
        if entry.machine.phase == .ringing {
            calls[id] = nil
            return entry.calleeLeg.map { [.releaseLeg($0)] } ?? []
        }
        return step(&entry, .connectionLost, at: now)
    }

    /// A timer that was started came due. One that was cancelled meanwhile changes nothing.
    public mutating func timerFired(_ timer: Timer, at now: Date) -> [Action] {
        let id: CallID
        switch timer {
        case .ring(let call), .grace(let call, _), .closed(let call): id = call
        }
        guard var entry = calls[id], entry.timers.remove(timer) != nil else { return [] }
        switch timer {
        case .ring: return step(&entry, .ringTimeout, at: now)
        case .grace, .closed: return step(&entry, .connectionLost, at: now)
        }
    }

    /// A leg's client closed it cleanly: its app hung up or is going. The call ends with the
    /// reason the person gave if their `call.hangup` comes within `closeGrace`, else then
    /// `connection_lost` (a failed or silent leg ends it at once: ``legLost(_:at:)``).
    public mutating func legClosed(_ id: CallID) -> [Action] {
        guard var entry = calls[id], entry.timers.insert(.closed(id)).inserted else { return [] }
        calls[id] = entry
        return [.startTimer(.closed(id), after: settings.closeGrace)]
    }

    /// The relay lost a leg (consent expired, DTLS failed): its call ends `connection_lost`.
    public mutating func legLost(_ id: CallID, at now: Date) -> [Action] {
        guard var entry = calls[id] else { return [] }
        return step(&entry, .connectionLost, at: now)
    }

    /// A device left the realtime socket: each call it takes part in waits for it a while.
    public mutating func deviceLeft(_ device: SessionID, user: UserID) -> [Action] {
        var actions: [Action] = []
        for (id, entry) in calls where entry.machine.involves(user) && Self.participates(device, entry.machine) {
            let timer = Timer.grace(id, device)
            if entry.timers.contains(timer) { actions.append(.cancelTimer(timer)) }
            calls[id]?.timers.insert(timer)
            actions.append(.startTimer(timer, after: settings.reconnectGrace))
        }
        return actions
    }

    /// The device is back in time: its calls go on.
    public mutating func deviceReturned(_ device: SessionID, user: UserID) -> [Action] {
        var actions: [Action] = []
        for (id, entry) in calls where entry.timers.contains(.grace(id, device)) {
            calls[id]?.timers.remove(.grace(id, device))
            actions.append(.cancelTimer(.grace(id, device)))
        }
        return actions
    }

    /// `blocker` blocked `blocked`: a call between them, ringing or active, ends at once as if
    /// the blocker hung up (declined or canceled while it rings, `hangup` once answered).
    public mutating func blocked(_ blocked: UserID, by blocker: UserID, at now: Date) -> [Action] {
        var actions: [Action] = []
        for id in calls.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var entry = calls[id], entry.machine.involves(blocker), entry.machine.involves(blocked) else { continue }
            actions += step(&entry, .hangup(user: blocker), at: now)
        }
        return actions
    }

    /// The server is stopping: every call ends `server_shutdown`.
    public mutating func shutdown(at now: Date) -> [Action] {
        var actions: [Action] = []
        for id in calls.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var entry = calls[id] else { continue }
            actions += step(&entry, .shutdown, at: now)
        }
        return actions
    }

    // MARK: Reading

    /// The live calls `device` of `user` takes part in or rings for (for a device that reconnects
    /// and syncs): the caller's own device; every device of the callee while it rings, the one
    /// that answered after.
    public func liveCalls(of user: UserID, device: SessionID) -> [CommandReply.LiveCall] {
        calls.values.sorted { $0.machine.startedAt < $1.machine.startedAt }.compactMap { entry in
            let machine = entry.machine
            let state: CommandReply.LiveCall.State
            switch machine.phase {
            case .ringing: state = .ringing
            case .active: state = .active
            case .ended: return nil
            }
            if machine.caller == user {
                guard device == machine.callerDevice else { return nil }
                return CommandReply.LiveCall(callId: machine.id.rawValue, state: state, direction: "outgoing",
                                             peerId: machine.callee.rawValue, media: machine.media)
            }
            guard machine.callee == user else { return nil }
            switch machine.phase {
            case .ringing: guard entry.rang else { return nil }
            case .active(let answeredBy, _): guard answeredBy == device else { return nil }
            case .ended: return nil
            }
            return CommandReply.LiveCall(callId: machine.id.rawValue, state: state, direction: "incoming",
                                         peerId: machine.caller.rawValue, media: machine.media)
        }
    }

    /// Calls by state, for /admin/status.
    public var counts: (ringing: Int, active: Int, ended: Int) {
        let ringing = calls.values.filter { $0.machine.phase == .ringing }.count
        return (ringing, calls.count - ringing, endedCount)
    }

    /// Every live call's id.
    public var callIDs: [CallID] { Array(calls.keys) }

    /// Whether call `id` is live in this book.
    public func holds(_ id: CallID) -> Bool { calls[id] != nil }

    /// The live call `user` takes part in, if any.
    public func liveCall(of user: UserID) -> CallID? {
        calls.first { $0.value.machine.involves(user) }?.key
    }

    // MARK: Inside

    /// The live call `user` takes part in, or the error a command about it deserves.
    func live(_ id: CallID, for user: UserID) throws(ParleyError) -> Entry {
        if let entry = calls[id], entry.machine.involves(user) { return entry }
        if recentlyEnded[id]?.users.contains(user) == true { throw CallErrors.callEnded }
        throw CallErrors.notFound
    }

    /// A step the machine cannot refuse (timers, media, shutdown), committed.
    mutating func step(_ entry: inout Entry, _ event: CallStateMachine.Event, at now: Date) -> [Action] {
        let steps = (try? entry.machine.handle(event, at: now)) ?? []
        return commit(entry, steps, at: now)
    }

    /// Stores the call after a step of its machine and turns the machine's actions into ours.
    mutating func commit(_ entry: Entry, _ steps: [CallStateMachine.Action], at now: Date) -> [Action] {
        var entry = entry
        let machine = entry.machine, id = machine.id.rawValue
        var actions: [Action] = []
        for step in steps {
            switch step {
            case .cancelRingTimer:
                if entry.timers.remove(.ring(machine.id)) != nil { actions.append(.cancelTimer(.ring(machine.id))) }
            case .pairLegs:
                actions += pairIfReady(&entry)
            case .releaseLegs:
                actions += [entry.callerLeg, entry.calleeLeg].compactMap { $0 }.map(Action.releaseLeg)
            case .announceAccepted:
                actions.append(.announce(.callAccepted(CallRefEvent(callId: id)), to: [machine.caller, machine.callee], except: nil))
            case .announceAnsweredElsewhere(let device):
                actions.append(.announce(.callEnded(CallEndedEvent(callId: id, reason: .answeredElsewhere, durationSeconds: 0)),
                                         to: [machine.callee], except: device))
            case .announceEnded(let reason, let duration):
                actions.append(.announce(.callEnded(CallEndedEvent(callId: id, reason: reason, durationSeconds: duration)),
                                         to: [machine.caller, machine.callee], except: nil))
            case .record(let reason, let answered, let duration):
                actions.append(.record(Self.history(machine, reason: reason, answered: answered, duration: duration)))
            }
        }
        if machine.isEnded {
            // Timers of an ended call are cancelled; the ring timer was already (cancelRingTimer).
            actions += entry.timers.sorted { "\($0)" < "\($1)" }.map(Action.cancelTimer)
            calls[machine.id] = nil
            endedCount += 1
            remember(machine, at: now)
        } else {
            calls[machine.id] = entry
        }
        return actions
    }

    /// Pairs the two legs once the call is answered and both exist.
    func pairIfReady(_ entry: inout Entry) -> [Action] {
        guard !entry.paired, case .active = entry.machine.phase, let caller = entry.callerLeg, let callee = entry.calleeLeg else { return [] }
        entry.paired = true
        return [.pairLegs(caller, callee)]
    }

    mutating func remember(_ machine: CallStateMachine, at now: Date) {
        recentlyEnded = recentlyEnded.filter { now.timeIntervalSince($0.value.at) < 600 }
        recentlyEnded[machine.id] = ([machine.caller, machine.callee], now)
    }

    /// The caller's device, or the callee's device that answered.
    static func participates(_ device: SessionID, _ machine: CallStateMachine) -> Bool {
        if device == machine.callerDevice { return true }
        if case .active(let answeredBy, _) = machine.phase { return device == answeredBy }
        return false
    }

    static func history(_ machine: CallStateMachine, reason: CallEndReason, answered: Bool, duration: Int) -> CallHistoryRecord {
        CallHistoryRecord(id: machine.id, caller: machine.caller, callee: machine.callee, media: machine.media,
                          reason: reason, answered: answered, startedAt: machine.startedAt, durationSeconds: duration)
    }
}

import Foundation
import ParleyCalls
import ParleyCore
import ParleyProtocol
import ParleyRelay
import Synchronization

// Fakes of what CallService drives, each recording what it was asked to do.

/// Relay legs. `hold()` makes leg creation wait until `release()` (two invites crossing in flight);
/// an offer of "bad" is refused as the relay refuses an offer it cannot answer.
final class FakeLegs: CallLegs {
    struct State {
        var made: [LegID] = []
        var paired: [Set<LegID>] = []
        var released: [LegID] = []
        var restarted: [LegID] = []
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    let state = Mutex(State())

    func makeLeg(offer: String, call: CallID) async throws(ParleyError) -> (LegID, answer: String) {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                if state.held { state.waiting.append(continuation); return false }
                return true
            }
            if resume { continuation.resume() }
        }
        if offer == "bad" { throw ParleyError.badRequest("no usable media", code: "invalid_sdp") }
        let leg = LegID.generate()
        state.withLock { $0.made.append(leg) }
        return (leg, "answer:\(offer)")
    }

    func pairLegs(_ a: LegID, _ b: LegID) async { state.withLock { $0.paired.append([a, b]) } }
    func releaseLeg(_ leg: LegID) async { state.withLock { $0.released.append(leg) } }
    func restartLeg(_ leg: LegID, offer: String) async throws(ParleyError) -> String {
        state.withLock { $0.restarted.append(leg) }
        return "restarted:\(offer)"
    }

    func hold() { state.withLock { $0.held = true } }
    func release() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
    var waitingCount: Int { state.withLock { $0.waiting.count } }
    var made: [LegID] { state.withLock { $0.made } }
    var paired: [Set<LegID>] { state.withLock { $0.paired } }
    var released: [LegID] { state.withLock { $0.released } }
    var restarted: [LegID] { state.withLock { $0.restarted } }
}

/// Friendships as pairs.
struct FakePermissions: CallPermissions {
    let friends: Set<Set<UserID>>

    func requireFriendship(from caller: UserID, to callee: UserID) async throws {
        guard friends.contains([caller, callee]) else { throw ParleyError.forbidden("Only friends can call each other", code: "not_friends") }
    }
}

final class FakeRecorder: CallRecorder {
    let records = Mutex<[CallHistoryRecord]>([])
    func record(_ call: CallHistoryRecord) async throws { records.withLock { $0.append(call) } }
    func calls(of user: UserID, before cursor: (Int64, String)?, limit: Int) async throws -> [CallHistoryRecord] {
        records.withLock { $0 }.filter { $0.caller == user || $0.callee == user }
    }
    var all: [CallHistoryRecord] { records.withLock { $0 } }
}

final class RecordingEvents: EventPublisher {
    struct Published: Equatable { let event: RealtimeEvent; let users: [UserID]; let except: SessionID? }
    let published = Mutex<[Published]>([])

    func publish(_ event: RealtimeEvent, to users: [UserID], exceptSession: SessionID?) async {
        published.withLock { $0.append(Published(event: event, users: users, except: exceptSession)) }
    }
    func publishEphemeral(_ event: RealtimeEvent, to users: [UserID]) {}

    var all: [Published] { published.withLock { $0 } }
    /// The `call.ended` events, with whom they went to.
    var ended: [(CallEndedEvent, [UserID])] {
        all.compactMap { if case .callEnded(let ended) = $0.event { (ended, $0.users) } else { nil } }
    }
    var incoming: [CallIncomingEvent] { all.compactMap { if case .callIncoming(let call) = $0.event { call } else { nil } } }
    var accepted: [String] { all.compactMap { if case .callAccepted(let call) = $0.event { call.callId } else { nil } } }
}

/// Timers that fire only when the test moves the clock.
final class ManualTimers: CallTimers {
    struct Pending { let id: Int; let due: Date; let fire: @Sendable () async -> Void }
    let clock = ManualWallClock()
    let pending = Mutex<(next: Int, timers: [Pending])>((0, []))

    func now() -> Date { clock.now() }

    func schedule(after delay: Duration, _ fire: @escaping @Sendable () async -> Void) -> CallTimerHandle {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        let id = pending.withLock { state in
            state.next += 1
            state.timers.append(Pending(id: state.next, due: clock.now().addingTimeInterval(seconds), fire: fire))
            return state.next
        }
        return CallTimerHandle { self.cancel(id) }
    }

    func cancel(_ id: Int) {
        pending.withLock { $0.timers.removeAll { $0.id == id } }
    }

    /// Moves the clock on, firing every timer that comes due on the way, in order.
    func advance(by seconds: TimeInterval) async {
        let end = clock.now().addingTimeInterval(seconds)
        while let next = pending.withLock({ state -> Pending? in
            guard let first = state.timers.filter({ $0.due <= end }).min(by: { $0.due < $1.due }) else { return nil }
            state.timers.removeAll { $0.id == first.id }
            return first
        }) {
            clock.set(max(clock.now(), next.due))
            await next.fire()
        }
        clock.set(end)
    }

    var scheduledCount: Int { pending.withLock { $0.timers.count } }
}

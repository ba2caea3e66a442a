import Foundation
import ParleyCore
import ParleyProtocol

/// One 1:1 call as a pure state machine: events in, actions out; no I/O, the clock passed in.
/// `CallBook` holds one per live call, adds the rules that span calls, and turns these actions
/// into the ones `CallService` carries out.
public struct CallStateMachine: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case ringing
        case active(answeredBy: SessionID, at: Date)
        case ended(CallEndReason, durationSeconds: Int)
    }

    public enum Event: Sendable, Equatable {
        case accept(user: UserID, device: SessionID)
        case decline(user: UserID)
        case hangup(user: UserID)
        case ringTimeout
        /// Media stopped (a leg died or a device stayed away past its grace period).
        case connectionLost
        case shutdown
    }

    public enum Action: Sendable, Equatable {
        case cancelRingTimer
        case pairLegs
        case releaseLegs
        /// `call.accepted` to both people.
        case announceAccepted
        /// `call.ended answered_elsewhere` to the callee's devices but the one that answered.
        case announceAnsweredElsewhere(except: SessionID)
        /// `call.ended` to both people.
        case announceEnded(CallEndReason, durationSeconds: Int)
        /// The record in the pair's dialog and in both call histories.
        case record(CallEndReason, answered: Bool, durationSeconds: Int)
    }

    public let id: CallID
    public let caller: UserID
    public let callerDevice: SessionID
    public let callee: UserID
    public let media: CallMedia
    public let startedAt: Date
    public private(set) var phase: Phase = .ringing

    public init(id: CallID, caller: UserID, callerDevice: SessionID, callee: UserID, media: CallMedia, startedAt: Date) {
        self.id = id
        self.caller = caller
        self.callerDevice = callerDevice
        self.callee = callee
        self.media = media
        self.startedAt = startedAt
    }

    public var isEnded: Bool { if case .ended = phase { true } else { false } }

    /// Whether a command from `user` may be given now (checked before the service spends work,
    /// such as creating the callee's relay leg, on an accept).
    public func check(_ event: Event) throws(ParleyError) {
        var copy = self
        _ = try copy.handle(event, at: startedAt)
    }

    /// Applies an event. Commands that make no sense now (a late accept, a second hangup, the
    /// caller accepting) throw a clear error and change nothing; timers and media events that
    /// come after the end are ignored.
    public mutating func handle(_ event: Event, at now: Date) throws(ParleyError) -> [Action] {
        switch (phase, event) {
        case (.ended, .ringTimeout), (.ended, .connectionLost), (.ended, .shutdown):
            return []
        case (.ended, _):
            throw CallErrors.callEnded

        case (.ringing, .accept(let user, let device)):
            guard user == callee else { throw CallErrors.notCallee }
            phase = .active(answeredBy: device, at: now)
            return [.cancelRingTimer, .pairLegs, .announceAccepted, .announceAnsweredElsewhere(except: device)]
        case (.active, .accept):
            throw CallErrors.alreadyAnswered

        case (.ringing, .decline(let user)):
            guard user == callee else { throw CallErrors.notCallee }
            return end(.declined, answeredAt: nil, now: now)
        case (.active, .decline):
            throw CallErrors.alreadyAnswered

        case (.ringing, .hangup(let user)):
            // Before an answer the caller cancels; the callee hanging up is declining.
            return end(user == caller ? .canceled : .declined, answeredAt: nil, now: now)
        case (.active(_, let answeredAt), .hangup):
            return end(.hangup, answeredAt: answeredAt, now: now)

        case (.ringing, .ringTimeout):
            return end(.noAnswer, answeredAt: nil, now: now)
        case (.active, .ringTimeout):
            return []

        case (.ringing, .connectionLost):
            return end(.connectionLost, answeredAt: nil, now: now)
        case (.active(_, let answeredAt), .connectionLost):
            return end(.connectionLost, answeredAt: answeredAt, now: now)

        case (.ringing, .shutdown):
            return end(.serverShutdown, answeredAt: nil, now: now)
        case (.active(_, let answeredAt), .shutdown):
            return end(.serverShutdown, answeredAt: answeredAt, now: now)
        }
    }

    mutating func end(_ reason: CallEndReason, answeredAt: Date?, now: Date) -> [Action] {
        let duration = answeredAt.map { max(0, Int(now.timeIntervalSince($0).rounded())) } ?? 0
        let wasRinging = phase == .ringing
        phase = .ended(reason, durationSeconds: duration)
        // Recorded before it is announced: a client that reads its history on `call.ended`
        // finds the call there.
        return (wasRinging ? [.cancelRingTimer] : []) + [
            .releaseLegs,
            .record(reason, answered: answeredAt != nil, durationSeconds: duration),
            .announceEnded(reason, durationSeconds: duration),
        ]
    }

    /// True while `user` takes part (ringing or talking).
    public func involves(_ user: UserID) -> Bool { !isEnded && (user == caller || user == callee) }
}

/// The stable codes Calls answers with.
public enum CallErrors {
    public static let notFound = ParleyError(.notFound, code: "call_not_found", "No such call")
    public static let callEnded = ParleyError(.conflict, code: "call_ended", "This call has already ended")
    public static let alreadyAnswered = ParleyError(.conflict, code: "call_already_answered", "This call was already answered")
    public static let notCallee = ParleyError(.forbidden, code: "not_callee", "Only the person called can answer or decline")
    public static let alreadyInCall = ParleyError(.conflict, code: "already_in_call", "You are already in a call")
    public static let notInCall = ParleyError(.forbidden, code: "not_in_call", "This device does not take part in the call")
    public static let callYourself = ParleyError.rule("cannot_call_yourself", "You cannot call yourself")
}

import Foundation
import ParleyCore
import ParleyProtocol
import Testing

@testable import ParleyCalls

/// Every state × every event, with the actions (or the error) expected.
@Suite struct CallStateMachineTests {
    static let caller = UserID(rawValue: "caller"), callee = UserID(rawValue: "callee"), stranger = UserID(rawValue: "x")
    static let callerPhone = SessionID(rawValue: "caller-phone")
    static let calleePhone = SessionID(rawValue: "callee-phone"), calleePad = SessionID(rawValue: "callee-pad")
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    enum State: String, CaseIterable, Sendable { case ringing, active, ended }
    enum Input: String, CaseIterable, Sendable {
        case acceptByCallee, acceptByCaller, acceptByOtherDevice, declineByCallee, declineByCaller
        case hangupByCaller, hangupByCallee, ringTimeout, connectionLost, shutdown
    }

    var event: [Input: CallStateMachine.Event] {
        [
            .acceptByCallee: .accept(user: Self.callee, device: Self.calleePhone),
            .acceptByCaller: .accept(user: Self.caller, device: Self.callerPhone),
            .acceptByOtherDevice: .accept(user: Self.callee, device: Self.calleePad),
            .declineByCallee: .decline(user: Self.callee), .declineByCaller: .decline(user: Self.caller),
            .hangupByCaller: .hangup(user: Self.caller), .hangupByCallee: .hangup(user: Self.callee),
            .ringTimeout: .ringTimeout, .connectionLost: .connectionLost, .shutdown: .shutdown,
        ]
    }

    /// A machine in `state`: answered on the callee's phone 10 s in; ended by a caller's hangup.
    func machine(_ state: State) throws -> CallStateMachine {
        var call = CallStateMachine(id: CallID(rawValue: "c"), caller: Self.caller, callerDevice: Self.callerPhone,
                                    callee: Self.callee, media: .video, startedAt: Self.start)
        if state != .ringing { _ = try call.handle(.accept(user: Self.callee, device: Self.calleePhone), at: Self.start.addingTimeInterval(10)) }
        if state == .ended { _ = try call.handle(.hangup(user: Self.caller), at: Self.start.addingTimeInterval(20)) }
        return call
    }

    enum Outcome: Equatable, Sendable {
        case actions([CallStateMachine.Action], CallStateMachine.Phase)
        case error(String)
    }

    /// Events arrive 100 s after the start (90 s after the answer).
    static func expected(_ state: State, _ input: Input) -> Outcome {
        let answered = CallStateMachine.Phase.active(answeredBy: calleePhone, at: start.addingTimeInterval(10))
        func endRinging(_ reason: CallEndReason) -> Outcome {
            .actions([.cancelRingTimer, .releaseLegs, .record(reason, answered: false, durationSeconds: 0), .announceEnded(reason, durationSeconds: 0)],
                     .ended(reason, durationSeconds: 0))
        }
        func endActive(_ reason: CallEndReason) -> Outcome {
            .actions([.releaseLegs, .record(reason, answered: true, durationSeconds: 90), .announceEnded(reason, durationSeconds: 90)],
                     .ended(reason, durationSeconds: 90))
        }
        switch (state, input) {
        case (.ringing, .acceptByCallee):
            return .actions([.cancelRingTimer, .pairLegs, .announceAccepted, .announceAnsweredElsewhere(except: calleePhone)],
                            .active(answeredBy: calleePhone, at: start.addingTimeInterval(100)))
        case (.ringing, .acceptByOtherDevice):
            return .actions([.cancelRingTimer, .pairLegs, .announceAccepted, .announceAnsweredElsewhere(except: calleePad)],
                            .active(answeredBy: calleePad, at: start.addingTimeInterval(100)))
        case (.ringing, .acceptByCaller), (.ringing, .declineByCaller): return .error("not_callee")
        case (.ringing, .declineByCallee), (.ringing, .hangupByCallee): return endRinging(.declined)
        case (.ringing, .hangupByCaller): return endRinging(.canceled)
        case (.ringing, .ringTimeout): return endRinging(.noAnswer)
        case (.ringing, .connectionLost): return endRinging(.connectionLost)
        case (.ringing, .shutdown): return endRinging(.serverShutdown)

        case (.active, .acceptByCallee), (.active, .acceptByCaller), (.active, .acceptByOtherDevice),
             (.active, .declineByCallee), (.active, .declineByCaller):
            return .error("call_already_answered")
        case (.active, .hangupByCaller), (.active, .hangupByCallee): return endActive(.hangup)
        case (.active, .ringTimeout): return .actions([], answered)
        case (.active, .connectionLost): return endActive(.connectionLost)
        case (.active, .shutdown): return endActive(.serverShutdown)

        case (.ended, .ringTimeout), (.ended, .connectionLost), (.ended, .shutdown):
            return .actions([], .ended(.hangup, durationSeconds: 10))
        case (.ended, _): return .error("call_ended")
        }
    }

    @Test(arguments: State.allCases, Input.allCases)
    func transition(from state: State, on input: Input) throws {
        var call = try machine(state)
        let before = call
        let outcome: Outcome
        do {
            let actions = try call.handle(event[input]!, at: Self.start.addingTimeInterval(100))
            outcome = .actions(actions, call.phase)
        } catch {
            outcome = .error(error.code)
            #expect(call == before, "a refused command changes nothing")
        }
        #expect(outcome == Self.expected(state, input), "\(input) while \(state)")
    }

    @Test func checkDoesNotChangeTheCall() throws {
        let call = try machine(.ringing)
        try call.check(.accept(user: Self.callee, device: Self.calleePhone))
        #expect(call.phase == .ringing)
        #expect(throws: ParleyError.self) { try call.check(.accept(user: Self.caller, device: Self.callerPhone)) }
        #expect(call.involves(Self.caller) && call.involves(Self.callee) && !call.involves(Self.stranger))
    }
}

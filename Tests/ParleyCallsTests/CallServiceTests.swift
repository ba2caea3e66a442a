import Foundation
import Logging
import ParleyCalls
import ParleyCore
import ParleyProtocol
import ParleyRelay
import Testing

/// CallService against fakes of the relay, friendships, records and events, on timers the test
/// moves: what it tells devices, which legs it makes, pairs and releases, what it records.
@Suite struct CallServiceTests {
    static let ann = UserID(rawValue: "ann"), bo = UserID(rawValue: "bo"), cy = UserID(rawValue: "cy")
    static let annPhone = SessionID(rawValue: "ann-phone"), boPhone = SessionID(rawValue: "bo-phone")
    static let boPad = SessionID(rawValue: "bo-pad"), cyPhone = SessionID(rawValue: "cy-phone")

    let legs = FakeLegs(), recorder = FakeRecorder(), events = RecordingEvents(), timers = ManualTimers()
    let service: CallService

    init() {
        service = CallService(
            legs: legs, permissions: FakePermissions(friends: [[Self.ann, Self.bo], [Self.cy, Self.bo], [Self.ann, Self.cy]]),
            recorder: recorder, events: events, timers: timers,
            settings: .init(ringTimeout: .seconds(45), reconnectGrace: .seconds(20)), logger: Logger(label: "test"))
    }

    /// Ann calls Bo; Bo answers on his phone.
    func activeCall() async throws -> CallID {
        let call = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .video, sdp: "ann")
        _ = try await service.accept(call.callId, by: Self.bo, device: Self.boPhone, sdp: "bo")
        return call.callId
    }

    @Test func aCallRingsIsAnsweredAndHungUp() async throws {
        let call = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .video, sdp: "ann")
        #expect(call.sdp == "answer:ann" && call.ended == nil)
        #expect(events.incoming == [CallIncomingEvent(callId: call.callId.rawValue, from: "ann", media: .video)])
        #expect(timers.scheduledCount == 1, "the ring timer")

        #expect(try await service.accept(call.callId, by: Self.bo, device: Self.boPhone, sdp: "bo") == "answer:bo")
        #expect(events.accepted == [call.callId.rawValue])
        #expect(legs.paired == [Set(legs.made)])
        #expect(timers.scheduledCount == 0, "the ring timer is cancelled")
        // Bo's other devices stop ringing.
        #expect(events.all.contains(.init(event: .callEnded(.init(callId: call.callId.rawValue, reason: .answeredElsewhere, durationSeconds: 0)),
                                          users: [Self.bo], except: Self.boPhone)))

        await timers.advance(by: 30)
        try await service.hangup(call.callId, by: Self.bo)
        #expect(events.ended.last?.0 == CallEndedEvent(callId: call.callId.rawValue, reason: .hangup, durationSeconds: 30))
        #expect(Set(legs.released) == Set(legs.made))
        #expect(recorder.all.map(\.reason) == [.hangup] && recorder.all.first?.answered == true)
        await #expect(throws: CallErrors.callEnded) { try await service.hangup(call.callId, by: Self.ann) }
    }

    /// Both press call at the same moment: both invites are in flight (their legs being made)
    /// when each finds the other. One call comes of it, answered, with both legs paired.
    @Test func invitesThatCrossInFlightBecomeOneCall() async throws {
        legs.hold()
        async let fromAnn = service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        async let fromBo = service.invite(from: Self.bo, device: Self.boPhone, to: Self.ann, media: .audio, sdp: "bo")
        while legs.waitingCount < 2 { await Task.yield() }
        legs.release()
        let (a, b) = try await (fromAnn, fromBo)
        #expect(a.callId == b.callId, "one call")
        #expect(a.ended == nil && b.ended == nil && a.sdp != nil && b.sdp != nil)
        #expect(events.accepted == [a.callId.rawValue])
        #expect(legs.made.count == 2 && legs.paired == [Set(legs.made)])
        let counts = await service.counts()
        #expect(counts.active == 1 && counts.ringing == 0)
        #expect(events.ended.allSatisfy { $0.0.reason == .answeredElsewhere }, "nothing ended but the ringing elsewhere")
    }

    @Test func aCalleeInAnotherCallIsBusy() async throws {
        let first = try await activeCall()
        let second = try await service.invite(from: Self.cy, device: Self.cyPhone, to: Self.bo, media: .audio, sdp: "cy")
        #expect(second.ended == .busy && second.sdp == nil && second.callId != first)
        #expect(events.ended.last.map { $0.0.reason == .busy && $0.1 == [Self.cy] } == true)
        #expect(recorder.all.last?.reason == .busy && recorder.all.last?.callee == Self.bo)
        #expect(legs.made.count == 2, "no leg for a call that never rang")
        #expect(await service.counts().active == 1)
    }

    @Test func aCallerInACallCannotPlaceAnother() async throws {
        _ = try await activeCall()
        await #expect(throws: CallErrors.alreadyInCall) {
            try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.cy, media: .audio, sdp: "again")
        }
        #expect(legs.made.count == 2 && events.incoming.count == 1)
    }

    @Test func anUnansweredCallEndsAfterTheRingTimeout() async throws {
        let call = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        await timers.advance(by: 44)
        #expect(events.ended.isEmpty)
        await timers.advance(by: 2)
        #expect(events.ended.map(\.0) == [CallEndedEvent(callId: call.callId.rawValue, reason: .noAnswer, durationSeconds: 0)])
        #expect(legs.released == legs.made)
        #expect(recorder.all.first?.outcome(for: Self.bo) == "missed")
    }

    @Test func aDeviceThatComesBackWithinTheGraceKeepsItsCall() async throws {
        let call = try await activeCall()
        await service.deviceDisconnected(Self.boPhone, user: Self.bo)
        await timers.advance(by: 15)
        await service.deviceReconnected(Self.boPhone, user: Self.bo)
        await timers.advance(by: 60)
        #expect(events.ended.filter { $0.0.reason != .answeredElsewhere }.isEmpty)
        let live = await service.liveCalls(of: Self.bo, device: Self.boPhone)
        #expect(live == [.init(callId: call.rawValue, state: .active, direction: "incoming", peerId: "ann", media: .video)])
        #expect(await service.liveCalls(of: Self.bo, device: Self.boPad).isEmpty, "answered on the phone, not the pad")

        await service.deviceDisconnected(Self.boPhone, user: Self.bo)
        await timers.advance(by: 21)
        #expect(events.ended.last?.0.reason == .connectionLost)
        #expect(await service.liveCalls(of: Self.ann, device: Self.annPhone).isEmpty)
    }

    @Test func aLegTheRelayLostEndsTheCall() async throws {
        let call = try await activeCall()
        await timers.advance(by: 5)
        await service.legLost(call)
        #expect(events.ended.last.map { $0.0 == CallEndedEvent(callId: call.rawValue, reason: .connectionLost, durationSeconds: 5)
                                       && Set($0.1) == [Self.ann, Self.bo] } == true)
        #expect(Set(legs.released) == Set(legs.made))
        #expect(timers.scheduledCount == 0)
    }

    /// An app closes its peer connection as it sends the hangup, and the UDP close can overtake the
    /// WebSocket command: the call waits for the hangup, so a caller who gives up leaves a missed
    /// call, not a lost connection.
    @Test func aLegClosedCleanlyWaitsForTheHangupThatComesWithIt() async throws {
        let call = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        await service.legClosed(call.callId)
        await timers.advance(by: 1)
        #expect(events.ended.isEmpty, "still waiting for Ann's hangup")
        try await service.hangup(call.callId, by: Self.ann)
        #expect(events.ended.last?.0.reason == .canceled)
        #expect(recorder.all.last?.outcome(for: Self.bo) == "missed")
        #expect(timers.scheduledCount == 0)
    }

    @Test func aLegClosedWithoutAHangupEndsTheCallAfterTheGrace() async throws {
        let call = try await activeCall()
        await timers.advance(by: 3)
        await service.legClosed(call)
        await timers.advance(by: 1)
        #expect(events.ended.filter { $0.0.reason != .answeredElsewhere }.isEmpty)
        await timers.advance(by: 1.5)
        #expect(events.ended.last?.0.reason == .connectionLost)
        #expect(timers.scheduledCount == 0)
    }

    @Test func anAnswerWhoseOfferIsRefusedChangesNothing() async throws {
        let call = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        await #expect(throws: ParleyError.self) { try await service.accept(call.callId, by: Self.bo, device: Self.boPhone, sdp: "bad") }
        #expect(await service.counts().ringing == 1 && events.accepted.isEmpty)
        _ = try await service.accept(call.callId, by: Self.bo, device: Self.boPad, sdp: "bo")
        #expect(events.accepted == [call.callId.rawValue])
    }

    @Test func aCallWhoseOfferIsRefusedNeverRings() async throws {
        await #expect(throws: ParleyError.self) {
            try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "bad")
        }
        #expect(events.all.isEmpty && recorder.all.isEmpty)
        #expect(await service.counts() == (0, 0, 0))
        // Nobody is left "in a call".
        _ = try await activeCall()
    }

    /// A network switch: each device restarts ICE on its own leg; a device that is not in the call
    /// (the callee's other device, a stranger) cannot.
    @Test func anICERestartGoesToTheDevicesOwnLeg() async throws {
        let call = try await activeCall()
        #expect(try await service.restartICE(call, by: Self.bo, device: Self.boPhone, sdp: "bo2") == "restarted:bo2")
        #expect(try await service.restartICE(call, by: Self.ann, device: Self.annPhone, sdp: "ann2") == "restarted:ann2")
        #expect(legs.restarted == [legs.made[1], legs.made[0]])
        await #expect(throws: CallErrors.notInCall) { try await service.restartICE(call, by: Self.bo, device: Self.boPad, sdp: "x") }
        await #expect(throws: CallErrors.notFound) { try await service.restartICE(call, by: Self.cy, device: Self.cyPhone, sdp: "x") }
        #expect(events.ended.allSatisfy { $0.0.reason == .answeredElsewhere }, "the other side sees no change")
    }

    /// A device that floods `call.restart` is refused before any offer is parsed.
    @Test func iceRestartsHaveAPerUserRate() async throws {
        let call = try await activeCall()
        for n in 0..<20 { _ = try await service.restartICE(call, by: Self.bo, device: Self.boPhone, sdp: "bo\(n)") }
        await #expect(throws: ParleyError.rateLimited(retryAfter: 60)) {
            try await service.restartICE(call, by: Self.bo, device: Self.boPhone, sdp: "again")
        }
        #expect(legs.restarted.count == 20)
        await timers.advance(by: 61)
        #expect(try await service.restartICE(call, by: Self.bo, device: Self.boPhone, sdp: "later") == "restarted:later")
    }

    @Test("call.media has a per-user rate: each change is an event stored for the other side")
    func mediaChangesHaveAPerUserRate() async throws {
        let call = try await activeCall()
        let limit = CallService.mediaChangesPerMinute
        for n in 0..<limit { try await service.setMedia(call, by: Self.bo, audio: n % 2 == 0, video: true) }
        await #expect(throws: ParleyError.rateLimited(retryAfter: 60)) {
            try await service.setMedia(call, by: Self.bo, audio: true, video: true)
        }
        let announced = { self.events.all.filter { if case .callMedia = $0.event { true } else { false } }.count }
        #expect(announced() == limit, "the refused change was not passed on")
        try await service.setMedia(call, by: Self.ann, audio: false, video: false)
        #expect(announced() == limit + 1, "the other side has a share of its own")
        await timers.advance(by: 61)
        try await service.setMedia(call, by: Self.bo, audio: true, video: false)
        #expect(announced() == limit + 2)
    }

    @Test func strangersCannotCall() async throws {
        await #expect(throws: ParleyError.self) {
            try await service.invite(from: Self.ann, device: Self.annPhone, to: UserID(rawValue: "stranger"), media: .audio, sdp: "x")
        }
        #expect(legs.made.isEmpty)
    }

    @Test func shutdownEndsEveryCall() async throws {
        _ = try await activeCall()
        _ = try await service.invite(from: Self.cy, device: Self.cyPhone, to: UserID(rawValue: "bo"), media: .audio, sdp: "cy")
        await service.shutdown()
        #expect(events.ended.filter { $0.0.reason == .serverShutdown }.count == 1)
        let counts = await service.counts()
        #expect(counts.active == 0 && counts.ringing == 0)
        #expect(Set(legs.released) == Set(legs.made))
    }
}

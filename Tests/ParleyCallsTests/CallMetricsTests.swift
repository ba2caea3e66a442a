import Foundation
import Logging
import MetricsTestKit
import ParleyCalls
import ParleyCore
import Testing
@testable import ParleyRelay

/// What CallService reports through swift-metrics, on the fakes and the timers the test moves:
/// each setup step timed from the invite, and every ending counted by its outcome.
@Suite struct CallMetricsTests {
    static let ann = UserID(rawValue: "ann"), bo = UserID(rawValue: "bo")
    static let annPhone = SessionID(rawValue: "ann-phone"), boPhone = SessionID(rawValue: "bo-phone")

    let legs = FakeLegs(), timers = ManualTimers(), metrics = TestMetrics()
    let service: CallService

    init() {
        service = CallService(
            legs: legs, permissions: FakePermissions(friends: [[Self.ann, Self.bo]]), recorder: FakeRecorder(),
            events: RecordingEvents(), timers: timers, settings: .init(ringTimeout: .seconds(45), reconnectGrace: .seconds(20)),
            metrics: CallMetrics(factory: metrics), logger: Logger(label: "test"))
    }

    func setup(_ step: String) throws -> [Int64] {
        try metrics.expectTimer("parley_call_setup_seconds", [("step", step)]).values
    }

    func calls(_ outcome: String) throws -> Int64 {
        try metrics.expectCounter("parley_calls_total", [("outcome", outcome)]).totalValue
    }

    @Test func anAnsweredCallIsTimedStepByStepFromItsInvite() async throws {
        let call = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .video, sdp: "ann")
        await timers.advance(by: 3)
        _ = try await service.accept(call.callId, by: Self.bo, device: Self.boPhone, sdp: "bo")
        await timers.advance(by: 1)
        // Both legs report their first media; the call's first media is timed once.
        let (relayEvents, continuation) = AsyncStream<LegEvent>.makeStream()
        for leg in legs.made { continuation.yield(LegEvent(leg: leg, owner: call.callId.rawValue, kind: .mediaFlowing)) }
        continuation.finish()
        await service.followRelay(relayEvents)
        await timers.advance(by: 20)
        try await service.hangup(call.callId, by: Self.ann)

        #expect(try setup("incoming") == [0])
        #expect(try setup("accepted") == [3_000_000_000])
        #expect(try setup("first_media") == [4_000_000_000])
        #expect(try calls("answered") == 1)
    }

    @Test func callsThatEndUnansweredAreCountedByReasonWithoutLaterSteps() async throws {
        let declined = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        try await service.decline(declined.callId, by: Self.bo)
        let missed = try await service.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        await timers.advance(by: 46)   // past the ring timeout
        #expect(try calls("declined") == 1)
        #expect(try calls("no_answer") == 1)
        #expect(try setup("incoming").count == 2)
        #expect(throws: (any Error).self) { try setup("accepted") }
        _ = missed
    }
}

import Foundation
import Logging
import ParleyCalls
import ParleyCore
import ParleyProtocol
import Synchronization
import Testing

/// The directory of who is in which call, on which node, shared by every `NodeView` (as the
/// `call_parties` table is), and the nodes' services, to which `send` hands requests.
final class FakeCallDirectory: Sendable {
    struct Row: Equatable { let call: CallID; let node: String; let parties: CallParties }
    let rows = Mutex<[UserID: Row]>([:])
    let services = Mutex<[String: CallService]>([:])

    struct NodeView: CallNetwork {
        let directory: FakeCallDirectory
        let node: String
        var isShared: Bool { true }

        func reserve(_ call: CallParties) async throws -> CallReservation {
            directory.rows.withLock { rows in
                let found = [rows[call.caller], rows[call.callee]].compactMap { $0 }
                if found.isEmpty {
                    for user in [call.caller, call.callee] { rows[user] = Row(call: call.id, node: node, parties: call) }
                    return .reserved
                }
                if found.contains(where: { $0.node == node }) { return .here }
                if let theirs = rows[call.callee], theirs.parties.caller == call.callee, theirs.parties.callee == call.caller {
                    return .crossing(theirs.call, node: theirs.node)
                }
                return rows[call.caller] != nil ? .callerBusy : .calleeBusy
            }
        }
        func answered(_ id: CallID, at time: Date) async {}
        func release(_ id: CallID) async { directory.rows.withLock { $0 = $0.filter { $0.value.call != id } } }
        func node(of id: CallID) async -> String? { directory.rows.withLock { $0.values.first { $0.call == id }?.node } }
        func callsElsewhere(of user: UserID) async -> [(call: CallID, node: String)] {
            directory.rows.withLock { rows in rows[user].flatMap { $0.node == node ? nil : [($0.call, $0.node)] } ?? [] }
        }
        func send(_ request: CallRequest, to node: String) async throws(ParleyError) -> CallReply {
            guard let service = directory.services.withLock({ $0[node] }) else { throw NodeRequestErrors.unreachable }
            // Through JSON, as on the bus.
            guard let carried = CallRequest.decode(request.json) else { throw ParleyError.badRequest("not a call request") }
            return CallReply.decode(await service.serve(carried).json)
        }
        func stop() async {}
    }
}

/// Two CallServices as two nodes, sharing a directory and handing each other requests: a call
/// is held where it was placed; commands from a device on the other node are carried out there.
@Suite struct CallsAcrossNodesTests {
    static let ann = UserID(rawValue: "ann"), bo = UserID(rawValue: "bo"), cy = UserID(rawValue: "cy")
    static let annPhone = SessionID(rawValue: "ann-phone"), boPhone = SessionID(rawValue: "bo-phone"), cyPhone = SessionID(rawValue: "cy-phone")

    let directory = FakeCallDirectory()
    let legsA = FakeLegs(), legsB = FakeLegs()
    let recorder = FakeRecorder(), events = RecordingEvents(), timers = ManualTimers()
    let nodeA: CallService, nodeB: CallService

    init() {
        let (recorder, events, timers, directory) = (recorder, events, timers, directory)
        func node(_ name: String, _ legs: FakeLegs) -> CallService {
            CallService(legs: legs, permissions: FakePermissions(friends: [[Self.ann, Self.bo], [Self.cy, Self.bo], [Self.ann, Self.cy]]),
                        recorder: recorder, events: events, timers: timers, settings: .init(),
                        network: FakeCallDirectory.NodeView(directory: directory, node: name), logger: Logger(label: "test"))
        }
        let (a, b) = (node("a", legsA), node("b", legsB))
        nodeA = a
        nodeB = b
        directory.services.withLock { $0 = ["a": nodeA, "b": nodeB] }
    }

    @Test func aCallPlacedOnOneNodeIsAnsweredAndHungUpFromTheOther() async throws {
        let call = try await nodeA.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .video, sdp: "ann")
        #expect(directory.rows.withLock { $0.count } == 2)
        #expect(try await nodeB.liveCalls(of: Self.bo, device: Self.boPhone).map(\.state) == [.ringing])
        // Bo, on node b, answers: his leg is made on node a, where the call is.
        #expect(try await nodeB.accept(call.callId, by: Self.bo, device: Self.boPhone, sdp: "bo") == "answer:bo")
        #expect(legsA.made.count == 2 && legsB.made.isEmpty)
        #expect(legsA.paired == [Set(legsA.made)])
        #expect(events.accepted == [call.callId.rawValue])
        #expect(try await nodeB.liveCalls(of: Self.bo, device: Self.boPhone).map(\.state) == [.active])
        // His device drops off on node b: node a's call waits for it (the grace timer).
        await nodeB.deviceDisconnected(Self.boPhone, user: Self.bo)
        await timers.advance(by: 25)
        #expect(events.ended.last?.0.reason == .connectionLost, "the grace ran out on node a")
        #expect(directory.rows.withLock { $0.isEmpty }, "both free again")
        #expect(Set(legsA.released) == Set(legsA.made))
        #expect(recorder.all.map(\.reason) == [.connectionLost])
    }

    @Test func refusalsFromTheCallsNodeReachTheOtherNode() async throws {
        let call = try await nodeA.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        await #expect(throws: CallErrors.notCallee) { try await nodeB.decline(call.callId, by: Self.ann) }
        try await nodeB.decline(call.callId, by: Self.bo)
        #expect(events.ended.last?.0.reason == .declined)
        await #expect(throws: CallErrors.notFound) { try await nodeB.hangup(call.callId, by: Self.bo) }
    }

    @Test func aCalleeInACallOnAnotherNodeIsBusyAndCrossingCallsBecomeOne() async throws {
        let call = try await nodeA.invite(from: Self.ann, device: Self.annPhone, to: Self.bo, media: .audio, sdp: "ann")
        // Bo calls Ann from node b while her call to him rings on node a: he answers hers.
        let crossing = try await nodeB.invite(from: Self.bo, device: Self.boPhone, to: Self.ann, media: .audio, sdp: "bo")
        #expect(crossing.callId == call.callId && crossing.sdp == "answer:bo")
        #expect(events.accepted == [call.callId.rawValue])
        // Cy, on node b, calls Bo, who is in the call on node a: busy, a missed call for Bo.
        let busy = try await nodeB.invite(from: Self.cy, device: Self.cyPhone, to: Self.bo, media: .audio, sdp: "cy")
        #expect(busy.ended == .busy && legsB.made.isEmpty)
        #expect(recorder.all.map(\.reason) == [.busy])
        // Bo cannot place another call from node b.
        await #expect(throws: CallErrors.alreadyInCall) {
            try await nodeB.invite(from: Self.bo, device: Self.boPhone, to: Self.cy, media: .audio, sdp: "bo")
        }
        // A block made on node b ends the call held on node a.
        await nodeB.blocked(Self.ann, by: Self.bo)
        #expect(events.ended.last?.0.callId == call.callId.rawValue)
        #expect(directory.rows.withLock { $0.isEmpty })
    }

    @Test func callsOfANodeThatStoppedEndForBothAndAreRecorded() async throws {
        let started = timers.now()
        let parties = CallParties(id: CallID(rawValue: "lost"), caller: Self.ann, callee: Self.bo, media: .video, startedAt: started)
        await nodeB.abandoned([AbandonedCall(parties: parties, node: "a", answeredAt: started.addingTimeInterval(5),
                                             lastSeen: started.addingTimeInterval(65))])
        #expect(events.ended.map(\.0) == [CallEndedEvent(callId: "lost", reason: .connectionLost, durationSeconds: 60)])
        #expect(events.ended.first?.1 == [Self.ann, Self.bo])
        #expect(recorder.all.map(\.answered) == [true] && recorder.all.first?.durationSeconds == 60)
    }

    @Test func commandsAboutCallsHeldElsewhereHaveAPerUserRate() async throws {
        // Each is a lookup in the directory (and a round trip to the call's node): a flood of
        // them from one person stops at the limit; the node's own calls are not counted.
        for _ in 0..<CallService.commandsElsewherePerMinute {
            await #expect(throws: CallErrors.notFound) { try await nodeB.hangup(CallID.generate(), by: Self.bo) }
        }
        do {
            try await nodeB.hangup(CallID.generate(), by: Self.bo)
            Issue.record("the command past the limit was let through")
        } catch let error as ParleyError {
            #expect(error.code == "rate_limited")
        }
        let local = try await nodeB.invite(from: Self.bo, device: Self.boPhone, to: Self.cy, media: .audio, sdp: "bo")
        try await nodeB.hangup(local.callId, by: Self.bo)
        await timers.advance(by: 61)
        await #expect(throws: CallErrors.notFound) { try await nodeB.hangup(CallID.generate(), by: Self.bo) }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ParleyCore
@testable import ParleyGateway
import Testing

/// `typing` goes to every device of every other member, so one person's flood would fill their
/// mailboxes: at most one per person and dialog each `realtime.typingIntervalSeconds` is passed
/// on, the rest answered like it and dropped (`parley_typing_dropped_total`).
@Suite struct TypingThrottleTests {
    @Test func aFloodReachesTheOtherMemberOnlyAtTheThrottledRate() async throws {
        let parley = try await TestParley.start { $0.typingIntervalSeconds = 0.5 }
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { annSocket.close(); boSocket.close() }

            // Bo's device sends 20 a tick for 1.6 s: 320 notices, every one answered ok.
            let started = ContinuousClock.now
            var sent = 0
            while ContinuousClock.now - started < .milliseconds(1600) {
                for _ in 0..<20 {
                    boSocket.sendRaw(#"{"id":"t\#(sent)","type":"typing","dialogId":"\#(dialog)"}"#)
                    sent += 1
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let last = "t\(sent - 1)"
            _ = try await boSocket.next(timeout: .seconds(10)) { $0["replyTo"] as? String == last }
            let span = ContinuousClock.now - started   // every notice was handled within it
            let replies = await boSocket.received().filter { $0["replyTo"] != nil }
            #expect(replies.allSatisfy { $0.ok == true }, "a dropped notice is answered like one passed on")

            try await Task.sleep(for: .milliseconds(300))
            let told = await annSocket.received().filter { $0.type == "typing" }
            // One at 0, 0.5, 1.0 and 1.5 s: four, and never more than one a half second.
            let most = Int(span / .milliseconds(500)) + 1
            #expect((3...most).contains(told.count), "Ann was told \(told.count) times of \(sent) in \(span)")
            #expect(told.allSatisfy { $0["userId"] as? String == bo.id })

            let metrics = try Exposition(parsing: String(decoding: parley.parts.operations.metrics.render(), as: UTF8.self))
            #expect(metrics.value("parley_typing_dropped_total") == Double(sent - told.count))
        }
    }

    /// A refused notice (not a member) does not count: asked again at once, the answer is the same.
    @Test func aNoticeThatDidNotGoOutHoldsNothingBack() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (_, _, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            let (socket, _) = try await RealtimeClient.connect(port: client.port!, token: cy.accessToken)
            defer { socket.close() }
            #expect(try await socket.command("typing", ["dialogId": dialog]).errorCode == "dialog_not_found")
            #expect(try await socket.command("typing", ["dialogId": dialog]).errorCode == "dialog_not_found")
        }
    }

    // MARK: The throttle, on a clock the test moves

    static let ann = UserID(rawValue: "ann"), bo = UserID(rawValue: "bo")
    static let first = DialogID(rawValue: "d1"), second = DialogID(rawValue: "d2")

    @Test func oneNoticePerPersonAndDialogEachInterval() {
        let t0 = ContinuousClock.now
        let throttle = TypingThrottle(interval: .seconds(2), now: t0)
        #expect(throttle.admit(Self.ann, Self.first, now: t0))
        #expect(!throttle.admit(Self.ann, Self.first, now: t0 + .milliseconds(1999)))
        #expect(throttle.admit(Self.ann, Self.second, now: t0 + .milliseconds(10)), "another dialog has its own")
        #expect(throttle.admit(Self.bo, Self.first, now: t0 + .milliseconds(20)), "another person has their own")
        #expect(throttle.admit(Self.ann, Self.first, now: t0 + .seconds(2)))
        #expect(!throttle.admit(Self.ann, Self.first, now: t0 + .milliseconds(2500)), "the interval starts at the last one passed on")
    }

    @Test func itsMemoryIsBounded() {
        let t0 = ContinuousClock.now
        let throttle = TypingThrottle(interval: .seconds(2), capacity: 3, now: t0)
        for n in 0..<3 { #expect(throttle.admit(UserID(rawValue: "u\(n)"), Self.first, now: t0)) }
        // Full of notices still in their interval: a new key waits rather than growing the table.
        #expect(!throttle.admit(UserID(rawValue: "u3"), Self.first, now: t0 + .seconds(1)))
        #expect(throttle.count == 3)
        // Their interval over, they are swept to make room.
        #expect(throttle.admit(UserID(rawValue: "u3"), Self.first, now: t0 + .seconds(3)))
        #expect(throttle.count == 1)
        // And once a minute regardless, so an idle server keeps no stale keys.
        #expect(throttle.admit(UserID(rawValue: "u4"), Self.first, now: t0 + .seconds(70)))
        #expect(throttle.count == 1)
    }

    @Test func aForgottenNoticeDoesNotHoldTheNextBack() {
        let t0 = ContinuousClock.now
        let throttle = TypingThrottle(interval: .seconds(2), now: t0)
        #expect(throttle.admit(Self.ann, Self.first, now: t0))
        throttle.forget(Self.ann, Self.first)
        #expect(throttle.admit(Self.ann, Self.first, now: t0 + .milliseconds(1)))
    }
}

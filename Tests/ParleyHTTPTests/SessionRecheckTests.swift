import Foundation
import Testing
@testable import ParleyGateway

/// Sockets opened together ask the store about their sessions at spread moments, each within
/// the interval.
@Suite struct SessionRecheckTests {
    @Test func socketsOpenedTogetherAskAtSpreadMomentsWithinTheInterval() {
        let opened = ContinuousClock.now, interval = Duration.seconds(10)
        let sockets = (0..<200).map { _ in SessionRecheck(confirmedAt: opened) }
        #expect(sockets.allSatisfy { !$0.isDue(every: interval, now: opened + .milliseconds(4_999)) }, "none before half the interval")
        #expect(sockets.allSatisfy { $0.isDue(every: interval, now: opened + interval) }, "every one by the interval")
        let dueEarly = sockets.filter { $0.isDue(every: interval, now: opened + .milliseconds(7_500)) }.count
        #expect((40...160).contains(dueEarly), "about half are due three quarters in, not all or none: \(dueEarly) of 200")

        // Each confirmation draws its moment afresh: the next round is spread as well.
        let confirmed = opened + interval
        sockets.forEach { $0.confirm(now: confirmed) }
        #expect(sockets.allSatisfy { !$0.isDue(every: interval, now: confirmed + .milliseconds(4_999)) })
        let dueAgain = sockets.filter { $0.isDue(every: interval, now: confirmed + .milliseconds(7_500)) }.count
        #expect((40...160).contains(dueAgain), "\(dueAgain) of 200")
    }
}

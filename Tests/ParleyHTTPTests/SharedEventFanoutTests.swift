import Foundation
import HummingbirdTesting
import Logging
import ParleyApp
import ParleyCore
import ParleyProtocol
import ParleyRealtime
import ParleyStorage
import ParleyTestSupport
import Synchronization
import Testing

/// The event fanout of nodes sharing PostgreSQL, driven by the test: which commit or wake-up
/// reaches a node first is the test's choice here, not the scheduler's.
@Suite struct SharedEventFanoutTests {
    /// Ann on a fresh PostgreSQL database; two fanouts on it as two nodes would have (each with a
    /// hub of its own, Ann's device on node 1's), and an event log whose commits `body` hands to
    /// them itself (`Commits.take`).
    static func twoFanouts(
        gapWait: Duration = .milliseconds(50), forgetInterval: Duration = .seconds(30),
        _ body: @escaping @Sendable (_ ann: UserID, _ log: EventLog, _ commits: Commits, _ one: SharedEventFanout,
                                     _ two: SharedEventFanout, _ device: Device, _ database: Database) async throws -> Void
    ) async throws {
        let url = try await TestPostgreSQL.freshDatabase()
        let node = try await TestParley.start { config in
            config.databaseURL = url
            config.jwtSecret = String(repeating: "5eed", count: 16)
            config.adminToken = String(repeating: "ad", count: 16)
        }
        try await node.test(.router) { client in
            let ann = UserID(rawValue: try await client.signUp("Ann", "ann@example.com", outbox: node.outbox).id)
            var logger = Logger(label: "fanout-test")
            logger.logLevel = .warning
            let database = node.parts.database
            let commits = Commits()
            let log = EventLog(database: database, hub: EventHub(), fanout: commits, clock: node.clock, retention: 86_400, logger: logger)
            let hubOne = EventHub()
            let one = SharedEventFanout(hub: hubOne, database: database, gapWait: gapWait, forgetInterval: forgetInterval, logger: logger)
            let two = SharedEventFanout(hub: EventHub(), database: database, gapWait: gapWait, logger: logger)
            let running = [one, two].map { fanout in Task { try await fanout.run { _, _, _ in [] } } }
            defer {
                for fanout in [one, two] { fanout.stop() }
                for task in running { task.cancel() }
            }
            try await Task.sleep(for: .milliseconds(300))   // both listening
            let device = Device(user: ann, on: hubOne)
            defer { device.leave() }
            try await body(ann, log, commits, one, two, device, database)
        }
        await TestPostgreSQL.drop(url)
    }

    /// The fanout an event log hands its commits to: they wait here until the test passes them on.
    final class Commits: EventFanout {
        private let held = Mutex<[[StoredEvent]]>([])
        func committed(_ events: [StoredEvent]) { held.withLock { $0.append(events) } }
        func take() -> [[StoredEvent]] { held.withLock { taken in defer { taken = [] }; return taken } }
    }

    /// One device's mailbox on node 1, and the numbers of the events it has been handed.
    final class Device: Sendable {
        let mailbox: Mailbox
        private let hub: EventHub
        private let seqs = Numbers()

        final class Numbers: Sendable {
            let list = Mutex<[Int]>([])
        }

        /// Connected to `hub` from the start, until `leave`.
        init(user: UserID, on hub: EventHub) {
            let mailbox = Mailbox(userID: user, sessionID: SessionID(rawValue: "ann-phone"), capacity: 100)
            self.mailbox = mailbox
            self.hub = hub
            let seqs = seqs
            // The mailbox's writer, as a socket's would be: woken when frames wait, takes them all.
            mailbox.onFrames {
                let frames = mailbox.take()
                seqs.list.withLock { list in list += frames.compactMap { Frame($0).seq } }
                mailbox.written(frames.count)
            }
            hub.attach(mailbox)
        }

        func leave() { hub.detach(mailbox) }

        /// A new connection of the same user on the same node.
        func rejoin() -> Device { Device(user: mailbox.userID, on: hub) }

        /// The numbers handed so far, once `count` have come (or 5 s have passed), and after
        /// `settle` more in which nothing else should come.
        func received(_ count: Int, settle: Duration = .milliseconds(300)) async throws -> [Int] {
            let deadline = ContinuousClock.now + .seconds(5)
            while seqs.list.withLock({ $0.count }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: settle)
            return seqs.list.withLock { $0 }
        }
    }

    /// Ann's phone connected on node 1 after number L, then two events committed for her, L+1 and
    /// L+2, held by the test: L and the two commits.
    static func twoCommits(of ann: UserID, _ log: EventLog, _ commits: Commits, connectedTo one: SharedEventFanout)
        async throws -> (latest: Int64, made: [[StoredEvent]]) {
        let latest = try await log.latestSeq(of: ann)
        one.connected(ann, after: latest)
        await publish(log, to: ann)
        await publish(log, to: ann)
        let made = commits.take()
        try #require(made.map { $0.map(\.seq) } == [[latest + 1], [latest + 2]])
        return (latest, made)
    }

    static func publish(_ log: EventLog, to user: UserID) async {
        await log.publish(.friendRemoved(UserRefEvent(userId: "bo")), to: [user], exceptSession: nil)
    }

    /// Ann's phone opens on node 1 after number L. Node 2 commits L+1 and node 1 then L+2; node 1's
    /// own commit reaches its fanout before node 2's wake-up for L+1 does (the wake-up goes round
    /// through PostgreSQL). The phone gets L+1 and L+2, in order, once each — L+1 was not skipped
    /// as "before where the phone started" because the first news of Ann on node 1 was L+2.
    @Test func aLowerNumberWhoseWakeUpComesLateReachesAConnectionThatJustOpened() async throws {
        try await Self.twoFanouts { ann, log, commits, one, two, device, _ in
            let (latest, made) = try await Self.twoCommits(of: ann, log, commits, connectedTo: one)

            one.committed(made[1])
            #expect(try await device.received(2) == [Int(latest) + 1, Int(latest) + 2])
            two.committed(made[0])   // its wake-up reaches node 1 now
            #expect(try await device.received(2, settle: .milliseconds(500)) == [Int(latest) + 1, Int(latest) + 2])
        }
    }

    /// The same gap, its wake-up coming while node 1 still waits for it: L+2 is held, not read,
    /// and handed after L+1 once that comes — shown by emptying the table before either is
    /// handed on (a read would find nothing, and the phone would get neither).
    @Test func aGapThatAWakeUpOnItsWayFillsIsNotRead() async throws {
        try await Self.twoFanouts(gapWait: .seconds(30)) { ann, log, commits, one, two, device, database in
            let (latest, made) = try await Self.twoCommits(of: ann, log, commits, connectedTo: one)
            try await database.write { try $0.execute("DELETE FROM user_events WHERE user_id = ?", ann.rawValue) }

            one.committed(made[1])
            #expect(try await device.received(0, settle: .milliseconds(300)) == [], "L+2 waits for L+1")
            two.committed(made[0])
            #expect(try await device.received(2) == [Int(latest) + 1, Int(latest) + 2])
        }
    }

    /// What is announced while the phone is connected but has not yet said where it starts (its
    /// hello's number was still being read) is handed once it has: everything after that number,
    /// once, in order, and a second connection of Ann's saying so again changes nothing.
    /// (No gap here waits for a wake-up: with a long `gapWait` a wait would show as a timeout.)
    @Test func aConnectionGetsEverythingAfterItsHellosNumberEvenWhatWasAnnouncedBeforeItSaidSo() async throws {
        try await Self.twoFanouts(gapWait: .seconds(30)) { ann, log, commits, one, two, device, _ in
            let latest = try await log.latestSeq(of: ann)
            await Self.publish(log, to: ann)
            for events in commits.take() { two.committed(events) }
            await Self.publish(log, to: ann)
            for events in commits.take() { one.committed(events) }
            try await Task.sleep(for: .milliseconds(300))   // node 2's wake-up has come too

            one.connected(ann, after: latest)
            #expect(try await device.received(2) == [Int(latest) + 1, Int(latest) + 2])
            one.connected(ann, after: latest)
            await Self.publish(log, to: ann)
            for events in commits.take() { one.committed(events) }
            #expect(try await device.received(3) == [Int(latest) + 1, Int(latest) + 2, Int(latest) + 3])
        }
    }

    /// Node 2's wake-up carries its events whole: node 1 hands them to Ann's phone without
    /// reading the table — shown by emptying the table before the wake-up goes. An event too
    /// large for one notification goes as its number alone, and is read.
    @Test func anotherNodesEventsArriveWithItsWakeUpAndOnlyTheTooLargeAreRead() async throws {
        try await Self.twoFanouts { ann, log, commits, one, two, device, database in
            let latest = try await log.latestSeq(of: ann)
            one.connected(ann, after: latest)
            await Self.publish(log, to: ann)
            await Self.publish(log, to: ann)
            try await database.write { try $0.execute("DELETE FROM user_events WHERE user_id = ?", ann.rawValue) }
            for events in commits.take() { two.committed(events) }
            #expect(try await device.received(2) == [Int(latest) + 1, Int(latest) + 2], "carried, not read: the table is empty")

            let long = String(repeating: "x", count: 9_000)
            await log.publish(.friendRemoved(UserRefEvent(userId: long)), to: [ann], exceptSession: nil)
            for events in commits.take() { two.committed(events) }
            #expect(try await device.received(3) == [Int(latest) + 1, Int(latest) + 2, Int(latest) + 3], "read from the table")
        }
    }

    /// A user who left and got no event since is forgotten by the node (no cursor kept for good:
    /// every user who ever connected, on a node that runs for weeks), and on coming back starts
    /// from the new hello's number as on a first connection: what came after it, once, in order.
    @Test func aUserWhoLeftIsForgottenAndStartsAgainFromTheNextHello() async throws {
        try await Self.twoFanouts(forgetInterval: .milliseconds(200)) { ann, log, commits, one, _, device, _ in
            let latest = try await log.latestSeq(of: ann)
            one.connected(ann, after: latest)
            await Self.publish(log, to: ann)
            one.committed(commits.take().flatMap { $0 })
            #expect(try await device.received(1) == [Int(latest) + 1])
            #expect(one.trackedUsers == 1)

            device.leave()
            try await Task.sleep(for: .milliseconds(300))
            one.connected(UserID(rawValue: "nobody-here"), after: 0)   // a batch, after the interval
            let deadline = ContinuousClock.now + .seconds(5)
            while one.trackedUsers > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(one.trackedUsers == 0, "Ann's cursor is dropped once she has no connection here")

            let back = device.rejoin()
            defer { back.leave() }
            one.connected(ann, after: latest + 1)
            await Self.publish(log, to: ann)
            await Self.publish(log, to: ann)
            one.committed(commits.take().flatMap { $0 })
            #expect(try await back.received(2) == [Int(latest) + 2, Int(latest) + 3])
        }
    }
}

import Foundation
import ParleyCore
import ParleyRealtime
import Synchronization
import Testing

/// A connection's mailbox: one wake-up per burst, frames in order, closing after what waits is
/// written, and the bound that lets a device that stopped reading go.
@Suite struct MailboxTests {
    /// A writer that records its wake-ups and takes only when told (as an event loop would, later).
    final class Writer: Sendable {
        let wakes = Count()
        let written = Mutex<[String]>([])
        let mailbox: Mailbox

        init(_ mailbox: Mailbox) {
            self.mailbox = mailbox
            mailbox.onFrames { [wakes] in wakes.add() }
        }

        func drain() {
            let frames = mailbox.take()
            written.withLock { $0 += frames }
            mailbox.written(frames.count)
        }
    }

    /// A count both a test and a callback can reach.
    final class Count: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var now: Int { value.load(ordering: .relaxed) }
    }

    static func mailbox(capacity: Int = 16, bytes: Int = Mailbox.defaultByteCapacity) -> Mailbox {
        Mailbox(userID: UserID(rawValue: "ann"), sessionID: SessionID(rawValue: "ann-phone"), capacity: capacity, byteCapacity: bytes)
    }

    @Test func aBurstWakesTheWriterOnceAndArrivesInOrder() {
        let mailbox = Self.mailbox()
        mailbox.offer("hello")
        let writer = Writer(mailbox)
        #expect(writer.wakes.now == 1, "frames offered before the writer came wake it at once")
        mailbox.offer("one")
        mailbox.offer("two")
        #expect(writer.wakes.now == 1, "a wake-up pending covers what follows it")
        writer.drain()
        #expect(writer.written.withLock { $0 } == ["hello", "one", "two"])
        mailbox.offer("three")
        #expect(writer.wakes.now == 2, "the first frame after a take wakes the writer again")
        writer.drain()
        #expect(writer.written.withLock { $0 } == ["hello", "one", "two", "three"])
    }

    @Test func closingStillWritesWhatWaitsAndTakesNothingMore() async {
        let mailbox = Self.mailbox()
        let writer = Writer(mailbox)
        mailbox.offer("reply")
        mailbox.close()
        mailbox.offer("after close")
        let finished = Task { await mailbox.finished() }
        try? await Task.sleep(for: .milliseconds(50))
        writer.drain()
        await finished.value
        #expect(writer.written.withLock { $0 } == ["reply"])
    }

    @Test func finishedWaitsForFramesTakenButNotYetWritten() async {
        let mailbox = Self.mailbox()
        _ = Writer(mailbox)
        mailbox.offer("frame")
        let taken = mailbox.take()
        mailbox.close()
        let done = Count()
        let finished = Task { await mailbox.finished(); done.add() }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(done.now == 0, "a frame taken is not written until the writer says so")
        mailbox.written(taken.count)
        await finished.value
        #expect(done.now == 1)
    }

    @Test func overflowClosesOnceDropsWhatWaitsAndLetsTheEndGo() async {
        let mailbox = Self.mailbox(capacity: 3)
        let writer = Writer(mailbox)
        let overflows = Count()
        mailbox.onOverflow { overflows.add() }
        for index in 0..<3 { mailbox.offer("frame \(index)") }
        #expect(!mailbox.didOverflow)
        mailbox.offer("one too many")
        mailbox.offer("and another")
        #expect(mailbox.didOverflow)
        #expect(overflows.now == 1)
        await mailbox.finished()
        writer.drain()
        #expect(writer.written.withLock { $0 }.isEmpty, "a connection told to go gets nothing more; it syncs when back")
    }

    @Test func theBytesWaitingAreBoundedToo() async {
        let mailbox = Self.mailbox(capacity: 100, bytes: 1000)
        let writer = Writer(mailbox)
        let overflows = Count()
        mailbox.onOverflow { overflows.add() }
        let long = String(repeating: "é", count: 150)   // 300 bytes in UTF-8, 150 characters
        for _ in 0..<3 { mailbox.offer(long) }
        writer.drain()
        for _ in 0..<3 { mailbox.offer(long) }
        #expect(!mailbox.didOverflow, "what was taken no longer counts: 900 bytes wait")
        mailbox.offer("a frame of 101 bytes: " + String(repeating: "x", count: 79))
        #expect(mailbox.didOverflow, "1 001 bytes would wait, in 7 frames of the 100 allowed")
        #expect(overflows.now == 1)
        await mailbox.finished()
        writer.drain()
        #expect(writer.written.withLock { $0 }.count == 3, "only what was taken before the overflow was written")
    }

    @Test func oneFrameLargerThanTheBoundIsTakenWhenNothingWaits() {
        let mailbox = Self.mailbox(capacity: 100, bytes: 1000)
        let writer = Writer(mailbox)
        let page = String(repeating: "x", count: 5000)   // a long page of sync
        mailbox.offer(page)
        #expect(!mailbox.didOverflow)
        writer.drain()
        mailbox.offer(page)
        #expect(!mailbox.didOverflow, "again, once the first was taken")
        mailbox.offer("one more")
        #expect(mailbox.didOverflow, "but nothing may wait behind it past the bound")
    }

    @Test func roomWaitsUntilTheWriterTakesOrTheMailboxCloses() async {
        let mailbox = Self.mailbox(capacity: 100, bytes: 1000)
        let writer = Writer(mailbox)
        let roomMade = Count()
        mailbox.offer(String(repeating: "x", count: 600))
        let waiting = Task { await mailbox.room(below: 500); roomMade.add() }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(roomMade.now == 0, "600 bytes wait")
        writer.drain()
        await waiting.value
        #expect(roomMade.now == 1, "none wait once the writer took them")

        mailbox.offer(String(repeating: "x", count: 600))
        let closing = Task { await mailbox.room(below: 500); roomMade.add() }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(roomMade.now == 1)
        mailbox.close()
        await closing.value
        #expect(roomMade.now == 2, "a closed mailbox lets the offerer go")
    }

    @Test func aCancelledWaitForTheEndReturns() async {
        let mailbox = Self.mailbox()
        let finished = Task { await mailbox.finished() }
        try? await Task.sleep(for: .milliseconds(20))
        finished.cancel()
        await finished.value
        #expect(!mailbox.didOverflow)
    }

    @Test func theHubWaitsUntilEveryMailboxIsWritten() async {
        let hub = EventHub()
        let mailbox = Self.mailbox()
        let writer = Writer(mailbox)
        hub.attach(mailbox)
        hub.deliver("event", to: mailbox.userID)
        let drained = Task {
            try? await Task.sleep(for: .milliseconds(100))
            writer.drain()
        }
        await hub.written(within: .seconds(60))
        #expect(writer.written.withLock { $0 } == ["event"], "it returned once the frame was written, not before")
        await drained.value
    }
}

import Foundation
@testable import ParleyStorage
import Synchronization
import Testing

/// The storage threads' queue: a job goes to the thread that went idle last (so a light load
/// keeps to the same few threads and connections), every job is taken once, and `stop` lets the
/// threads drain what is queued and return.
@Suite struct WorkQueueTests {
    /// What the takers took, in the order they took it.
    final class Taken: Sendable {
        private let entries = Mutex<[(String, Int)]>([])
        func add(_ name: String, _ jobs: [Int]) { entries.withLock { $0 += jobs.map { (name, $0) } } }
        var all: [(String, Int)] { entries.withLock { $0 } }
    }

    /// Starts a thread that takes jobs one at a time, recording each as (its name, the job).
    static func taker(_ name: String, _ queue: WorkQueue<Int>, _ taken: Taken, _ done: DispatchGroup) {
        done.enter()
        Thread {
            while let jobs = queue.takeAll(limit: 1) {
                taken.add(name, jobs)
            }
            done.leave()
        }.start()
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        try #require(condition())
    }

    @Test func aJobWakesTheTakerThatWentIdleLast() async throws {
        let queue = WorkQueue<Int>(), taken = Taken(), done = DispatchGroup()
        for (n, name) in ["first", "second", "third"].enumerated() {
            Self.taker(name, queue, taken, done)
            try await Self.waitUntil { queue.idleTakers == n + 1 }
        }
        #expect(queue.submit(1))
        try await Self.waitUntil { taken.all.count == 1 && queue.idleTakers == 3 }
        #expect(queue.submit(2))
        try await Self.waitUntil { taken.all.count == 2 && queue.idleTakers == 3 }
        #expect(taken.all.map(\.0) == ["third", "third"], "the last to go idle, and again once it is back")
        queue.stop()
        done.wait()
    }

    @Test func everyJobIsTakenOnceAndStopDrainsTheQueueFirst() async throws {
        let queue = WorkQueue<Int>(), taken = Taken(), done = DispatchGroup()
        for name in ["a", "b", "c", "d"] { Self.taker(name, queue, taken, done) }
        await withTaskGroup(of: Void.self) { group in
            for part in 0..<4 {
                group.addTask { for n in 0..<500 { _ = queue.submit(part * 500 + n) } }
            }
        }
        queue.stop()
        #expect(!queue.submit(-1), "refused once stopped")
        done.wait()   // every taker returned
        #expect(taken.all.map(\.1).sorted() == Array(0..<2000))
    }
}

import Foundation
import Synchronization
import Testing
@testable import ParleyLoadTest

/// Events come from a thread of its own here, not a task: under a full test run the cooperative
/// pool can be held up for whole seconds, and the feeder must not fall quiet because of that.
@Suite("Chat: the run starts once connecting's events have stopped arriving")
struct ChatSettleTests {
    /// A feeder's state: when it sent its last event, and whether to stop.
    final class Feeder: Sendable {
        let done = Mutex<ContinuousClock.Instant?>(nil)
        let stop = Atomic<Bool>(false)
    }

    /// Feeds `count` events (nil: until stopped), one every `seconds`, on a thread.
    static func feed(_ collector: ChatCollector, count: Int?, every seconds: Double) -> Feeder {
        let feeder = Feeder()
        let thread = Thread {
            var sent = 0
            while !feeder.stop.load(ordering: .relaxed), count.map({ sent < $0 }) ?? true {
                collector.eventArrived()
                sent += 1
                Thread.sleep(forTimeInterval: seconds)
            }
            feeder.done.withLock { $0 = .now }
        }
        thread.start()
        return feeder
    }

    @Test func startsOnlyAfterTheEventsStop() async throws {
        let collector = ChatCollector()
        let feeder = Self.feed(collector, count: 15, every: 0.02)
        let settled = await collector.settled(quietFor: .seconds(1), within: .seconds(120))
        let returned = ContinuousClock.now
        #expect(settled != nil)
        let last = try #require(feeder.done.withLock { $0 })
        #expect(returned >= last, "started while events were still coming")
    }

    @Test func givesUpAtItsLimitWhileEventsKeepComing() async {
        let collector = ChatCollector()
        let feeder = Self.feed(collector, count: nil, every: 0.005)
        // A quiet spell longer than the limit can never be seen.
        let settled = await collector.settled(quietFor: .seconds(10), within: .seconds(1))
        feeder.stop.store(true, ordering: .relaxed)
        #expect(settled == nil)
    }

    @Test func quietSocketsSettleAtOnce() async {
        let settled = await ChatCollector().settled(quietFor: .milliseconds(100), within: .seconds(60))
        #expect(settled == .zero)
    }
}

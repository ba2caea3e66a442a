import Testing
@testable import ParleyLoadTest

@Suite("Chat: the run starts once connecting's events have stopped arriving")
struct ChatSettleTests {
    @Test func waitsOutEventsThatKeepComingThenStartsWhenTheyStop() async {
        let collector = ChatCollector()
        // Events for 300 ms, one every 20 ms: the wait ends after them, once 200 ms pass with none.
        let feeder = Task {
            for _ in 0..<15 {
                collector.eventArrived()
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let settled = await collector.settled(quietFor: .milliseconds(200), within: .seconds(10))
        await feeder.value
        let waited = try? #require(settled)
        #expect((waited ?? .zero) >= .milliseconds(250))
        #expect((waited ?? .seconds(10)) < .seconds(5))
    }

    @Test func givesUpWhenEventsNeverStop() async {
        let collector = ChatCollector()
        let feeder = Task {
            while !Task.isCancelled {
                collector.eventArrived()
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        let settled = await collector.settled(quietFor: .seconds(1), within: .seconds(2))
        feeder.cancel()
        #expect(settled == nil)
    }

    @Test func quietSocketsSettleAtOnce() async {
        let settled = await ChatCollector().settled(quietFor: .milliseconds(100), within: .seconds(10))
        #expect(settled == .zero)
    }
}

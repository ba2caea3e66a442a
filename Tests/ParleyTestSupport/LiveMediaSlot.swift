import Testing

/// Suites that drive real media through the relay (aiortc, Chromium, the Swift media client)
/// and count frames against time each take one of a few slots for the whole suite, so that on a
/// 2-core machine they do not all decode video at once while the rest runs beside them.
/// Everything else still runs in parallel; the bounds in these tests stay what they were. The
/// slot is taken around the suite, so a suite's wait does not count against its tests' limits.
public struct LiveMediaSlot: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard test.isSuite else { return try await function() }
        await Self.slots.acquire()
        do {
            try await function()
        } catch {
            await Self.slots.release()
            throw error
        }
        await Self.slots.release()
    }

    static let slots = Slots(count: 2)

    /// A counting semaphore for tasks: waiters are resumed in the order they came.
    actor Slots {
        private var free: Int
        private var waiters: [CheckedContinuation<Void, Never>] = []

        init(count: Int) { free = count }

        func acquire() async {
            if free > 0 { free -= 1; return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func release() {
            if waiters.isEmpty { free += 1 } else { waiters.removeFirst().resume() }
        }
    }
}

extension Trait where Self == LiveMediaSlot {
    /// Runs the suite in one of the live-media slots.
    public static var liveMedia: Self { LiveMediaSlot() }
}

import CoreMetrics
import Logging
import Synchronization

/// Gathers sends into batches, for PostgreSQL (`SQLChatStore.sendAll`): a send that arrives while
/// `maxInFlight` batches are under way waits, and the next batch takes every send waiting then —
/// group commit, as SQLite's writer commits the transactions queued behind a commit together. A
/// send that finds a batch free goes at once, alone: an idle server adds no wait, and batches grow
/// only with the load.
final class SendBatcher: Sendable {
    typealias Send = SQLChatStore.BatchedSend
    typealias Outcome = Result<SettledMessage?, any Error>

    private struct Waiting {
        let send: Send
        let continuation: CheckedContinuation<SettledMessage?, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var inFlight = 0
        /// The messages of the batches under way (`Send.key`): a second send of one waits until
        /// the first is stored, and then finds it.
        var keysInFlight: Set<String> = []
        /// The most sends one batch has held.
        var largest = 0

        /// Up to `limit` waiting sends, oldest first, no two of one message and none of a batch
        /// under way: those stay for a later batch.
        mutating func take(limit: Int) -> [Waiting] {
            var taken: [Waiting] = [], left: [Waiting] = []
            for entry in waiting {
                if taken.count < limit, keysInFlight.insert(entry.send.key).inserted {
                    taken.append(entry)
                } else {
                    left.append(entry)
                }
            }
            waiting = left
            largest = max(largest, taken.count)
            return taken
        }
    }

    private let state = Mutex(State())
    private let maxInFlight: Int
    private let maxBatch: Int
    /// Runs one batch; answers an outcome per send, in their order.
    private let run: @Sendable ([Send]) async -> [Outcome]

    init(maxInFlight: Int = 1, maxBatch: Int = 64, run: @escaping @Sendable ([Send]) async -> [Outcome]) {
        self.maxInFlight = maxInFlight
        self.maxBatch = maxBatch
        self.run = run
    }

    /// The most sends one batch has held so far.
    var largestBatch: Int { state.withLock { $0.largest } }

    func send(_ send: Send) async throws -> SettledMessage? {
        try await withCheckedThrowingContinuation { continuation in
            let batch = state.withLock { state -> [Waiting] in
                state.waiting.append(Waiting(send: send, continuation: continuation))
                guard state.inFlight < maxInFlight else { return [] }
                let batch = state.take(limit: maxBatch)
                if !batch.isEmpty { state.inFlight += 1 }
                return batch
            }
            if !batch.isEmpty { Task { await drain(from: batch) } }
        }
    }

    /// Runs `first`, then whatever waits, until nothing does.
    private func drain(from first: [Waiting]) async {
        var batch = first
        while !batch.isEmpty {
            let outcomes = await run(batch.map(\.send))
            for (index, waiting) in batch.enumerated() {
                waiting.continuation.resume(with: index < outcomes.count ? outcomes[index] : .failure(BatchError.noOutcome))
            }
            batch = state.withLock { [batch] state in
                for waiting in batch { state.keysInFlight.remove(waiting.send.key) }
                let next = state.take(limit: maxBatch)
                if next.isEmpty { state.inFlight -= 1 }
                return next
            }
        }
    }

    enum BatchError: Error {
        /// A batch answered fewer outcomes than it had sends (a defect).
        case noOutcome
    }
}

/// How a node's batches go: their sizes (`parley_message_batch_size`), and those whose statement
/// failed as a whole (`parley_message_batch_fallbacks_total`, and a notice in the log) — a
/// message PostgreSQL refuses, or a lost race between nodes, each of whose sends then went alone.
struct BatchFigures: Sendable {
    let size: Recorder
    let fallbacks: Counter
    let logger: Logger

    init(metrics: any MetricsFactory, logger: Logger) {
        size = Recorder(label: "parley_message_batch_size", factory: metrics)
        fallbacks = Counter(label: "parley_message_batch_fallbacks_total", factory: metrics)
        self.logger = logger
    }
}

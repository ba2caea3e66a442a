import Foundation
import ParleyMediaClient
import Synchronization

/// `--workers N`: the calls spread over N harness processes, so the media clients get more than
/// one process's threads (or, with `--bind-host`, are run from other machines by hand).
///
/// The parent starts N children of itself (`--worker-index i`, the same options otherwise). Each
/// seeds the users of its share of the calls (every N-th call, from the i-th), connects them, and
/// says `ready` on its standard output; once all are ready the parent writes `go` to each, and
/// every process counts the ramp and the end from that moment. Each child then writes its
/// collector's ``CallsCollector/Snapshot`` as a JSON line twice a second, and a last one when its
/// calls are over; the parent polls the server's status, shows progress and makes the one report
/// from the merged snapshots (``CallsCollector/Snapshot/merged(_:)``). The harness's CPU in the
/// report is the parent's and its children's.
extension CallsScenario {
    /// Lines a worker writes on its standard output.
    enum WorkerLine {
        static let ready = "ready"
        static let snapshot = "snapshot "
        static let done = "done"
    }

    /// In a child (`--worker-index`): runs its share of the calls, reporting to the parent.
    public func runAsWorker() async throws {
        let progress = Progress()
        let (shared, parties) = try await prepare(progress: progress)
        defer { for party in parties { party.connection.close() } }
        Self.emit(WorkerLine.ready)
        // The parent's go; end of input (the parent gone) ends the worker.
        let go = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { continuation.resume(returning: readLine() != nil) }.start()
        }
        guard go else { return }
        let collector = CallsCollector()
        let (start, end) = schedule(from: ContinuousClock.now)
        let reporter = Task {
            var tick = start
            while !Task.isCancelled {
                tick += .milliseconds(500)
                try? await Task.sleep(until: tick)
                if let line = try? Self.line(await collector.snapshot) { Self.emit(line) }
            }
        }
        await placeCalls(parties: parties, shared: shared, collector: collector, start: start, end: end)
        reporter.cancel()
        _ = await reporter.value
        Self.emit(try Self.line(await collector.snapshot))
        Self.emit(WorkerLine.done)
    }

    static func line(_ snapshot: CallsCollector.Snapshot) throws -> String {
        WorkerLine.snapshot + String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
    }

    /// One line on standard output, written at once (not through stdio's buffer).
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// In the parent: starts the workers, gives the go when all are ready, samples, merges.
    func runWorkers(progress showProgress: Bool) async throws -> CallsReport {
        let progress = Progress()
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        progress.note("starting \(options.workers) worker processes for \(options.calls) calls…")
        var workers: [WorkerProcess] = []
        defer { for worker in workers { worker.stop() } }
        for index in 0..<options.workers {
            workers.append(try WorkerProcess(index: index, executable: executable,
                                             arguments: options.workerArguments + ["--worker-index", String(index)]))
        }
        let readyBy = ContinuousClock.now + .seconds(600)
        while !workers.allSatisfy(\.isReady) {
            if let gone = workers.first(where: \.hasExited) {
                throw WorkerProcess.Failure.exited(index: gone.index, status: gone.exitStatus)
            }
            guard ContinuousClock.now < readyBy else { throw WorkerProcess.Failure.notReady }
            try await Task.sleep(for: .milliseconds(50))
        }
        for worker in workers { worker.go() }
        let (start, end) = schedule(from: ContinuousClock.now)
        let timeline = await sample(start: start, until: end, progress: showProgress ? progress : nil, withChildren: true) {
            CallsCollector.Snapshot.merged(workers.map(\.latest))
        }
        // Each worker's last snapshot comes once its calls have hung up.
        let doneBy = ContinuousClock.now + .seconds(30)
        while !workers.allSatisfy({ $0.hasExited }), ContinuousClock.now < doneBy {
            try? await Task.sleep(for: .milliseconds(50))
        }
        progress.finish()
        var collected = CallsCollector.Snapshot.merged(workers.map(\.latest))
        for worker in workers where !worker.isDone {
            collected.failures["worker \(worker.index) ended without its last figures", default: 0] += 1
        }
        return CallsReport(options: options, collected: collected, timeline: timeline)
    }
}

/// One worker child: its pipes, and what it said last (read on a thread of its own).
final class WorkerProcess: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case exited(index: Int, status: Int32?)
        case notReady

        var description: String {
            switch self {
            case .exited(let index, let status): "worker \(index) exited (status \(status.map(String.init) ?? "?")) before it was ready"
            case .notReady: "the workers were not ready within 600 s"
            }
        }
    }

    private struct State {
        var ready = false
        var done = false
        var exited = false
        var latest = CallsCollector.Snapshot()
    }

    let index: Int
    private let process: Process
    private let input: FileHandle
    private let state = Mutex(State())

    init(index: Int, executable: String, arguments: [String]) throws {
        self.index = index
        let process = Process(), input = Pipe(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        self.process = process
        self.input = input.fileHandleForWriting
        let reader = output.fileHandleForReading
        Thread { [self] in
            var buffer = Data()
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                buffer.append(data)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    take(line)
                }
            }
            state.withLock { $0.exited = true }
        }.start()
    }

    private func take(_ line: String) {
        if line == CallsScenario.WorkerLine.ready {
            state.withLock { $0.ready = true }
        } else if line == CallsScenario.WorkerLine.done {
            state.withLock { $0.done = true }
        } else if line.hasPrefix(CallsScenario.WorkerLine.snapshot),
                  let snapshot = try? JSONDecoder().decode(CallsCollector.Snapshot.self,
                                                           from: Data(line.dropFirst(CallsScenario.WorkerLine.snapshot.count).utf8)) {
            state.withLock { $0.latest = snapshot }
        }
    }

    var isReady: Bool { state.withLock { $0.ready } }
    var isDone: Bool { state.withLock { $0.done } }
    /// Its output has ended: it exited (or closed it).
    var hasExited: Bool { state.withLock { $0.exited } }
    var latest: CallsCollector.Snapshot { state.withLock { $0.latest } }
    var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    func go() {
        try? input.write(contentsOf: Data("go\n".utf8))
    }

    /// Closes its input (a worker still waiting for the go ends) and, if it still runs, ends it.
    func stop() {
        try? input.close()
        if process.isRunning { process.terminate() }
    }
}

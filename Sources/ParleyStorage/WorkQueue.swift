import Foundation

/// Jobs handed from tasks to the storage threads: a list under a condition variable. Takers
/// block while it is empty; `stop` lets them drain what is left and then return nil.
final class WorkQueue<Job>: @unchecked Sendable {
    private let condition = NSCondition()
    /// Jobs not yet taken are `jobs[head...]`: taking one moves `head` on instead of shifting the
    /// array, so a long queue (a burst beyond what the threads keep up with) costs O(1) a take.
    private var jobs: [Job] = []
    private var head = 0
    private var stopped = false

    /// False once stopped: the job was not queued.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Every queued job, up to `limit`, waiting for one if there is none; nil once stopped and empty.
    func takeAll(limit: Int) -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !stopped { condition.wait() }
        if head == jobs.count { return nil }
        let end = min(jobs.count, head + limit)
        let taken = Array(jobs[head..<end])
        head = end
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return taken
    }

    /// Waits up to `timeout` seconds; true once stopped.
    func waitForStop(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !stopped { _ = condition.wait(until: Date().addingTimeInterval(timeout)) }
        return stopped
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Lets `close` await the end of the storage threads.
final class ThreadExits: @unchecked Sendable {
    private let condition = NSCondition()
    private var running: Int

    init(count: Int) { running = count }

    func exited() {
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    func waitForAll() {
        condition.lock()
        while running > 0 { condition.wait() }
        condition.unlock()
    }
}

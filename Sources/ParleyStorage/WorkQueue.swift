import Foundation

/// Jobs handed from tasks to the storage threads: a list under a lock. Takers block while it is
/// empty; `stop` lets them drain what is left and then return nil.
///
/// A job wakes the taker that went idle last (each waits on a semaphore of its own, kept on a
/// stack), not the one that has waited longest: under a light load the same few threads do the
/// work, and on PostgreSQL their connections are the ones whose statements are prepared and
/// planned and whose server process has its caches warm. Woken in turn, every connection of the
/// pool plans each statement for its first runs, all of them at the start of a load.
final class WorkQueue<Job>: @unchecked Sendable {
    private let condition = NSCondition()
    /// Jobs not yet taken are `jobs[head...]`: taking one moves `head` on instead of shifting the
    /// array, so a long queue (a burst beyond what the threads keep up with) costs O(1) a take.
    private var jobs: [Job] = []
    private var head = 0
    private var stopped = false
    /// The takers waiting for a job, the last to go idle on top.
    private var idle: [DispatchSemaphore] = []

    /// False once stopped: the job was not queued.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        guard !stopped else {
            condition.unlock()
            return false
        }
        jobs.append(job)
        let taker = idle.popLast()
        condition.unlock()
        taker?.signal()
        return true
    }

    /// Every queued job, up to `limit`, waiting for one if there is none; nil once stopped and empty.
    func takeAll(limit: Int) -> [Job]? {
        var wake: DispatchSemaphore?
        while true {
            condition.lock()
            if head < jobs.count {
                let taken = take(limit: limit)
                condition.unlock()
                return taken
            }
            if stopped {
                condition.unlock()
                return nil
            }
            // Woken by a job another thread took first, it waits again, on top of the stack.
            let semaphore = wake ?? DispatchSemaphore(value: 0)
            wake = semaphore
            idle.append(semaphore)
            condition.unlock()
            semaphore.wait()
        }
    }

    /// Called with the lock held and a job queued.
    private func take(limit: Int) -> [Job] {
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

    /// How many takers wait for a job now.
    var idleTakers: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle.count
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
        let waiting = idle
        idle = []
        condition.broadcast()
        condition.unlock()
        for taker in waiting { taker.signal() }
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

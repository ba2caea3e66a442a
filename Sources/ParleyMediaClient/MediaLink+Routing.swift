import NIOCore
import Synchronization

extension MediaLink {
    /// Where packets and ticks go: to the reading task (a queue it waits on), or to the direct
    /// handlers. Used on the event loop, but for the queue (under its lock), which the reading
    /// task takes from.
    final class Router: @unchecked Sendable {
        private struct Queue {
            var events: [Event] = []
            var waiter: CheckedContinuation<[Event]?, Never>?
            var finished = false
            /// At most one tick waits unread, so an idle client's queue does not grow.
            var tickQueued = false
        }
        private let queue = Mutex(Queue())
        var direct: Direct?
        private(set) var finished = false
        private var batch: [Event] = []
        private var scratch: [UInt8] = []

        init() {
            scratch.reserveCapacity(2_048)
        }

        func packet(_ bytes: UnsafeRawBufferPointer) {
            guard let direct else {
                batch.append(.datagram(Array(bytes)))
                return
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: bytes)
            direct.datagram(&scratch)
        }

        /// The end of one socket read: what went to the task meanwhile goes to it together.
        func readComplete() {
            guard !batch.isEmpty else { return }
            let events = batch
            batch = []
            hand(events)
        }

        func tick() {
            if let direct { return direct.tick() }
            let queued = queue.withLock { queue in
                defer { queue.tickQueued = true }
                return queue.tickQueued
            }
            if !queued { hand([.tick]) }
        }

        /// Hands `direct` the packets queued for the task and not yet taken, then everything.
        func take(_ direct: Direct?) {
            self.direct = direct
            guard let direct else { return }
            readComplete()
            let events = queue.withLock { queue in
                defer { queue.events = []; queue.tickQueued = false }
                return queue.events
            }
            for event in events {
                if case .datagram(var bytes) = event { direct.datagram(&bytes) }
            }
        }

        private func hand(_ events: [Event]) {
            let waiter = queue.withLock { queue -> CheckedContinuation<[Event]?, Never>? in
                guard !queue.finished else { return nil }
                if let waiter = queue.waiter {
                    queue.waiter = nil
                    return waiter
                }
                queue.events.append(contentsOf: events)
                return nil
            }
            waiter?.resume(returning: events)
        }

        /// The next events for the reading task, waiting for some; nil once finished.
        func nextBatch() async -> [Event]? {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Event]?, Never>) in
                let ready = queue.withLock { queue -> [Event]?? in
                    if !queue.events.isEmpty {
                        defer { queue.events = [] }
                        return .some(queue.events)
                    }
                    if queue.finished { return .some(nil) }
                    queue.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// A tick was read: the next may be queued.
        func tickTaken() {
            queue.withLock { $0.tickQueued = false }
        }

        func finish() {
            readComplete()
            direct = nil
            finished = true
            let waiter = queue.withLock { queue in
                queue.finished = true
                defer { queue.waiter = nil }
                return queue.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// One timer per event loop and tick length for every link on it.
    final class TickHub: @unchecked Sendable {
        private static let hubs = Mutex<[String: TickHub]>([:])
        private var routers: [Router] = []

        static func join(_ router: Router, loop: any EventLoop, every tick: TimeAmount) {
            let key = "\(ObjectIdentifier(loop as AnyObject).hashValue)/\(tick.nanoseconds)"
            let (hub, isNew) = hubs.withLock { hubs in
                if let hub = hubs[key] { return (hub, false) }
                let hub = TickHub()
                hubs[key] = hub
                return (hub, true)
            }
            loop.execute { hub.routers.append(router) }
            if isNew {
                loop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in hub.tick() }
            }
        }

        private func tick() {
            guard !routers.isEmpty else { return }
            var anyFinished = false
            for router in routers {
                if router.finished { anyFinished = true } else { router.tick() }
            }
            if anyFinished { routers.removeAll { $0.finished } }
        }
    }
}

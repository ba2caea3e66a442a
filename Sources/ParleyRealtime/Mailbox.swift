import Foundation
import ParleyCore
import Synchronization

/// A live connection's inbox: frames wait here until the connection's writer takes them.
/// Bounded in frames and in bytes: a connection that falls too far behind is told to go (and will
/// `sync` on return), so one slow phone never holds up anyone else, and a device that stops reading
/// holds no more of the server's memory than the bound — however long the frames it is sent (a
/// message of 4 000 characters, escaped, is tens of kilobytes).
///
/// The writer is woken, not polled: the first frame offered after a `take()` calls the writer's
/// wake-up (`onFrames`), and everything offered until its `take()` rides along with that one
/// wake-up. A socket's writer runs on its channel's event loop and writes what it took in one
/// flush (RealtimeGateway), so a burst costs one hand-off, not a task switch and a hand-off per frame.
public final class Mailbox: Sendable {
    public let id = UUID()
    public let userID: UserID
    public let sessionID: SessionID
    private let capacity: Int
    private let byteCapacity: Int
    private let state = Mutex(State())

    /// The bytes a mailbox holds at most unless told otherwise (`realtime.mailboxBytes`).
    public static let defaultByteCapacity = 4 << 20

    private struct State {
        var queued: [String] = []
        /// The UTF-8 bytes of `queued`.
        var queuedBytes = 0
        /// The writer has been woken and has not taken yet: offers until then need no wake-up.
        var wakePending = false
        /// Taken by the writer and not yet handed to the socket (`written`).
        var inFlight = 0
        var closed = false
        var overflowed = false
        var wake: (@Sendable () -> Void)?
        var overflowAction: (@Sendable () -> Void)?
        var finishWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        /// Offerers waiting for the bytes queued to fall (`room(below:)`).
        var roomWaiters: [CheckedContinuation<Void, Never>] = []

        var isDrained: Bool { queued.isEmpty && inFlight == 0 }

        mutating func takeRoomWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { roomWaiters = [] }
            return roomWaiters
        }

        /// Once closed and drained, whoever waits for the end is let go.
        mutating func takeFinishWaiters() -> [CheckedContinuation<Void, Never>] {
            guard closed, isDrained, !finishWaiters.isEmpty else { return [] }
            defer { finishWaiters = [:] }
            return Array(finishWaiters.values)
        }
    }

    /// `capacity` frames and `byteCapacity` bytes wait at most; a single frame larger than
    /// `byteCapacity` is still taken when nothing else waits.
    public init(userID: UserID, sessionID: SessionID, capacity: Int, byteCapacity: Int = Mailbox.defaultByteCapacity) {
        self.userID = userID
        self.sessionID = sessionID
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// The writer: `wake` is called (outside any lock, on the offering thread) when frames wait
    /// and it has not been woken since its last `take()`. Frames offered before are handed at once.
    public func onFrames(_ wake: @escaping @Sendable () -> Void) {
        let wakeNow = state.withLock { state -> Bool in
            state.wake = wake
            guard !state.queued.isEmpty, !state.wakePending else { return false }
            state.wakePending = true
            return true
        }
        if wakeNow { wake() }
    }

    /// Queues a frame; on overflow the mailbox closes, drops what waits, remembers why, and runs
    /// the overflow action (the connection's writer may be stuck behind a peer that stopped reading).
    /// A closed mailbox takes nothing more.
    public func offer(_ frame: String) {
        enum Outcome { case queued, wake(@Sendable () -> Void), overflowed((@Sendable () -> Void)?, [CheckedContinuation<Void, Never>]), refused }
        let size = frame.utf8.count
        let outcome = state.withLock { state -> Outcome in
            if state.closed { return .refused }
            if state.queued.count >= capacity || (!state.queued.isEmpty && state.queuedBytes + size > byteCapacity) {
                state.closed = true
                state.overflowed = true
                state.queued = []
                state.queuedBytes = 0
                state.inFlight = 0
                state.wake = nil
                return .overflowed(state.overflowAction, state.takeFinishWaiters() + state.takeRoomWaiters())
            }
            state.queued.append(frame)
            state.queuedBytes += size
            guard !state.wakePending, let wake = state.wake else { return .queued }
            state.wakePending = true
            return .wake(wake)
        }
        switch outcome {
        case .queued, .refused: break
        case .wake(let wake): wake()
        case .overflowed(let action, let waiters):
            waiters.forEach { $0.resume() }
            action?()
        }
    }

    /// Everything waiting, in order; the next offer wakes the writer again. Call `written` with
    /// the count once the frames are handed to the socket.
    public func take() -> [String] {
        let (taken, waiters) = state.withLock { state in
            state.wakePending = false
            if state.closed { state.wake = nil }
            var taken: [String] = []
            swap(&taken, &state.queued)
            state.queuedBytes = 0
            state.inFlight += taken.count
            return (taken, state.takeRoomWaiters())
        }
        waiters.forEach { $0.resume() }
        return taken
    }

    /// Returns once fewer than `bytes` bytes and half the frames the mailbox takes wait to be
    /// taken, or the mailbox is closed: a reply of many frames (a page of `sync`) goes at the pace
    /// the device reads, within the bounds, where offered at once it could pass them and close a
    /// connection that only reads slowly.
    public func room(below bytes: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.closed || (state.queuedBytes < bytes && state.queued.count < capacity / 2) { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The writer has handed `count` frames it took to the socket.
    public func written(_ count: Int) {
        let waiters = state.withLock { state in
            state.inFlight = max(0, state.inFlight - count)
            return state.takeFinishWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// What to do when the mailbox overflows (close the connection).
    public func onOverflow(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.overflowAction = action }
    }

    public var didOverflow: Bool { state.withLock { $0.overflowed } }

    /// Whether every frame offered has been handed to the socket.
    var isWritten: Bool { state.withLock { $0.isDrained } }

    /// Takes no more frames; those already offered are still written (a refusal's reply goes
    /// out before its connection closes).
    public func close() {
        let waiters = state.withLock { state in
            state.closed = true
            // A wake-up already sent still drains what waits (see `offer`): the writer, which
            // holds this mailbox, is let go.
            if !state.wakePending { state.wake = nil }
            return state.takeFinishWaiters() + state.takeRoomWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once the mailbox is closed and everything offered before has been written (or
    /// dropped by an overflow), or when the waiting task is cancelled.
    public func finished() async {
        let waiter = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled || (state.closed && state.isDrained) { return true }
                    state.finishWaiters[waiter] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { $0.finishWaiters.removeValue(forKey: waiter) }
            continuation?.resume()
        }
    }
}

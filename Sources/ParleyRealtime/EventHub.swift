import Foundation
import ParleyCore
import ParleyProtocol
import Synchronization

/// A live connection's inbox: frames wait here until the connection's writer sends them.
/// Bounded: a connection that falls too far behind is told to go (and will `sync` on return),
/// so one slow phone never holds up anyone else.
public final class Mailbox: Sendable {
    public let id = UUID()
    public let userID: UserID
    public let sessionID: SessionID
    private let continuation: AsyncStream<String>.Continuation
    public let frames: AsyncStream<String>
    private let overflowed = Mutex(false)
    private let overflowAction = Mutex<(@Sendable () -> Void)?>(nil)
    /// Frames offered and not yet written by the connection's writer (`written()`): an atomic,
    /// not a lock, since every frame of every socket counts through it.
    private let unwritten = Atomic<Int>(0)

    public init(userID: UserID, sessionID: SessionID, capacity: Int) {
        self.userID = userID
        self.sessionID = sessionID
        (frames, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(capacity))
    }

    /// Queues a frame; on overflow the mailbox closes, remembers why, and runs the overflow action
    /// (the connection's writer may be stuck behind a peer that stopped reading).
    public func offer(_ frame: String) {
        let result = continuation.yield(frame)
        if case .enqueued = result { unwritten.wrappingAdd(1, ordering: .relaxed) }
        if case .dropped = result {
            let first = overflowed.withLock { already in
                defer { already = true }
                return !already
            }
            continuation.finish()
            if first { overflowAction.withLock { $0 }?() }
        }
    }

    /// What to do when the mailbox overflows (close the connection).
    public func onOverflow(_ action: @escaping @Sendable () -> Void) {
        overflowAction.withLock { $0 = action }
    }

    public var didOverflow: Bool { overflowed.withLock { $0 } }

    /// The connection's writer has written a frame it took from `frames`.
    public func written() { unwritten.wrappingSubtract(1, ordering: .relaxed) }

    /// Whether every frame offered has been written.
    var isWritten: Bool { unwritten.load(ordering: .relaxed) <= 0 }

    public func close() { continuation.finish() }
}

/// Who is connected right now, and delivery to their mailboxes. One per process.
public final class EventHub: Sendable {
    private let mailboxes = Mutex<[UserID: [UUID: Mailbox]]>([:])

    public init() {}

    public func attach(_ mailbox: Mailbox) {
        mailboxes.withLock { $0[mailbox.userID, default: [:]][mailbox.id] = mailbox }
    }

    public func detach(_ mailbox: Mailbox) {
        mailboxes.withLock { boxes in
            boxes[mailbox.userID]?[mailbox.id] = nil
            if boxes[mailbox.userID]?.isEmpty == true { boxes[mailbox.userID] = nil }
        }
        mailbox.close()
    }

    /// Hands a frame to every connected device of `user` (but `exceptSession`).
    public func deliver(_ frame: String, to user: UserID, exceptSession: SessionID? = nil) {
        let targets = mailboxes.withLock { Array(($0[user] ?? [:]).values) }
        for mailbox in targets where mailbox.sessionID != exceptSession { mailbox.offer(frame) }
    }

    /// Closes the connections of a device (`session`) or of every device of `user`: their
    /// sessions have ended, so nothing more may reach them.
    public func closeConnections(session: SessionID? = nil, user: UserID? = nil) {
        let targets = mailboxes.withLock { boxes in
            boxes.flatMap { owner, devices in
                devices.values.filter { (user == nil || owner == user) && (session == nil || $0.sessionID == session) }
            }
        }
        for mailbox in targets { mailbox.close() }
    }

    /// Waits until every open connection has written what it was offered, or `limit` has
    /// passed: at shutdown, what was said last (calls ended) goes out before the sockets close.
    /// At least 50 ms: on PostgreSQL events reach the mailboxes from a delivery task of their own.
    public func written(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        try? await Task.sleep(for: .milliseconds(50))
        while ContinuousClock.now < deadline {
            let pending = mailboxes.withLock { boxes in boxes.values.contains { $0.values.contains { !$0.isWritten } } }
            if !pending { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether any connection of this device is open.
    public func isConnected(_ session: SessionID, of user: UserID) -> Bool {
        mailboxes.withLock { ($0[user] ?? [:]).values.contains { $0.sessionID == session } }
    }

    /// An event that is not stored (typing): numbered by nobody, lost if nobody listens.
    public func deliverEphemeral(_ event: RealtimeEvent, to users: [UserID]) {
        let frame = ServerFrame.event(event, seq: nil).text
        for user in users { deliver(frame, to: user) }
    }

    /// The users with a connection open here.
    public func onlineUsers() -> [UserID] { mailboxes.withLock { Array($0.keys) } }

    /// Open connections of `user`, all devices together.
    public func connectionCount(of user: UserID) -> Int { mailboxes.withLock { $0[user]?.count ?? 0 } }

    public var connectionCount: Int { mailboxes.withLock { $0.values.reduce(0) { $0 + $1.count } } }
    public var onlineUserCount: Int { mailboxes.withLock { $0.count } }
    public func isOnline(_ user: UserID) -> Bool { mailboxes.withLock { $0[user] != nil } }
}

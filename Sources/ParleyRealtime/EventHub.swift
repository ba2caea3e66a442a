import Foundation
import ParleyCore
import ParleyProtocol
import Synchronization

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

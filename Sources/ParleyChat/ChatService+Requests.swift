import Foundation
import ParleyCore
import ParleyFriends
import ParleyProtocol

/// Message requests: a stranger who takes messages from everyone can be written to; the first
/// message waits as a request its receiver accepts (a normal chat) or declines (gone for both).
extension ChatService {
    /// How a message in a private dialog may go.
    enum PrivateGate: Equatable {
        /// Friends, or a request that was accepted.
        case open
        /// The sender's own request still waits: stored, but the receiver is not sent it.
        case waiting(receiver: UserID)
        /// The first message to a stranger: it opens a request.
        case opening(receiver: UserID)
    }

    /// Blocked either way: closed. Friends, or an accepted request: open. Otherwise the sender's
    /// waiting request, or a new one when the receiver takes messages from everyone (within the
    /// sender's hourly allowance).
    func privateGate(_ user: UserID, _ dialog: DialogID, to other: UserID, reach: Reach,
                     request: MessageRequestRecord?) async throws -> PrivateGate {
        if let settled = try Self.settledGate(user, to: other, reach: reach, request: request) { return settled }
        if reach == .friends {
            // Two who became friends while a request waited: it is a normal chat now.
            _ = try await store.acceptRequest(dialog: dialog)
            return .open
        }
        guard try await friends.privacy(of: other).messagesFrom == .everyone else { throw FriendErrors.friendshipRequired }
        try await requestLimit.admitting(user.rawValue, now: clock.now())
        return .opening(receiver: other)
    }

    /// The gate as far as the dialog's own state tells it (no reading, no writing): nil when a
    /// request must be accepted (friends now) or opened (strangers), which `privateGate` does.
    static func settledGate(_ user: UserID, to other: UserID, reach: Reach, request: MessageRequestRecord?) throws -> PrivateGate? {
        switch reach {
        case .blocked: throw FriendErrors.blocked
        case .friends: return request?.status == .pending ? nil : .open
        case .notFriends:
            guard let request else { return nil }
            if request.status == .accepted { return .open }
            if request.from == user { return .waiting(receiver: other) }
            throw ChatErrors.messageRequestPending
        }
    }

    /// The requests waiting for `user`, newest first, each with its first message.
    public func messageRequests(of user: UserID) async throws -> [MessageRequestSummary] {
        var summaries: [MessageRequestSummary] = []
        for request in try await store.pendingRequests(to: user) {
            let first = try await store.messages(in: request.dialogID, after: request.firstSeq - 1, before: request.firstSeq + 1, limit: 1)
            let members = try await store.members(of: request.dialogID)
            summaries.append(MessageRequestSummary(request: request, firstMessage: try await views(first, members: members).first))
        }
        return summaries
    }

    /// The receiver accepts: the dialog joins their list with what was sent so far, and both
    /// sides' devices get `message.request` (`accepted`).
    public func acceptRequest(_ user: UserID, _ dialog: DialogID) async throws -> DialogRecord {
        guard let request = try await store.messageRequest(dialog: dialog), request.to == user, request.status == .pending,
              try await store.acceptRequest(dialog: dialog), let record = try await store.dialog(id: dialog)
        else { throw ChatErrors.messageRequestNotFound }
        await events.publish(.messageRequest(MessageRequestEvent(request: requestView(request, status: "accepted", message: nil))),
                             to: [request.from, request.to])
        return record
    }

    /// The receiver declines: the request's messages are gone for both (and the dialog, unless an
    /// older history of the two is left in it); both sides' devices get `message.request`
    /// (`declined`), and `dialog.deleted` when the dialog went.
    public func declineRequest(_ user: UserID, _ dialog: DialogID) async throws {
        guard let request = try await store.messageRequest(dialog: dialog), request.to == user, request.status == .pending,
              let dialogWent = try await store.declineRequest(dialog: dialog)
        else { throw ChatErrors.messageRequestNotFound }
        await announceDeclined(request, dialogWent: dialogWent, to: [request.from, request.to])
    }

    /// A block ends a request waiting between the two, as a decline would; only the blocker's
    /// devices are told (to the blocked a block looks like nothing more than an unfriend).
    public func blocked(_ blocked: UserID, by blocker: UserID) async {
        guard let dialog = try? await store.privateDialog(pairKey: Self.pairKey(blocker, blocked)),
              let request = try? await store.messageRequest(dialog: dialog.id), request.status == .pending,
              let dialogWent = try? await store.declineRequest(dialog: dialog.id)
        else { return }
        await announceDeclined(request, dialogWent: dialogWent, to: [blocker])
    }

    func announceDeclined(_ request: MessageRequestRecord, dialogWent: Bool, to users: [UserID]) async {
        await events.publish(.messageRequest(MessageRequestEvent(request: requestView(request, status: "declined", message: nil))),
                             to: users)
        if dialogWent {
            await events.publish(.dialogDeleted(DialogRefEvent(dialogId: request.dialogID.rawValue)), to: users)
        }
    }

    func requestView(_ request: MessageRequestRecord, status: String, message: MessageView?) -> MessageRequestEvent.Request {
        MessageRequestEvent.Request(
            id: request.dialogID.rawValue, dialogId: request.dialogID.rawValue, from: request.from.rawValue, to: request.to.rawValue,
            status: status, createdAt: WireTime.string(request.createdAt), message: message)
    }
}

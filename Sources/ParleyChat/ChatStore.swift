import Foundation
import ParleyCore
import ParleyStorage
import ParleyProtocol

/// What Chat needs from storage. Multi-row changes are single transactions.
public protocol ChatStore: Sendable {
    func dialog(id: DialogID) async throws -> DialogRecord?
    /// What sending into a dialog reads, in one snapshot: the dialog, its members, for a private
    /// dialog its message request, and the sender's standing (who blocks them; toward the other
    /// of a private dialog, a block or a friendship). Nil when there is no such dialog.
    func sendContext(dialog id: DialogID, sender: UserID) async throws -> SendContext?
    /// The private dialog of a pair, if it exists.
    func privateDialog(pairKey: String) async throws -> DialogRecord?
    func createDialog(_ dialog: DialogRecord, pairKey: String?, members: [UserID]) async throws
    func updateDialog(id: DialogID, name: String?, avatar: AttachmentID?, at: Date) async throws
    func addMembers(_ users: [UserID], to dialog: DialogID, at: Date) async throws
    /// Removes a member; an owner's group passes to the longest-standing member, and a group
    /// nobody is left in is deleted (one transaction).
    func removeMember(_ user: UserID, from dialog: DialogID) async throws -> MemberRemoval
    /// Deletes the dialog with its members and messages, for everyone.
    func deleteDialog(_ dialog: DialogID) async throws
    func membership(_ user: UserID, in dialog: DialogID) async throws -> Membership?
    func members(of dialog: DialogID) async throws -> [Membership]
    /// Hides the dialog for `user` and drops its history so far from their view.
    func clear(_ dialog: DialogID, for user: UserID) async throws
    func unhide(_ dialog: DialogID, for user: UserID) async throws

    /// Stores a message with the dialog's next seq; if (dialog, sender, clientMessageID) exists,
    /// returns that one instead (`isNew` false). A new message's event (`announce`, encoded by the
    /// caller before: nothing in it depends on the number the write gives the message) is stored
    /// for `recipients` in the same transaction (a crash keeps both or neither) and delivered to
    /// live connections once it has committed, before this returns.
    /// `opening`: a new message request this message starts, recorded with it (its `firstSeq` the
    /// message's) and announced to its receiver in the same transaction, unless one exists already.
    func appendMessage(
        _ message: MessageRecord, announce: EncodedEvent, to recipients: [UserID],
        opening request: OpenedRequest?
    ) async throws -> (message: MessageRecord, isNew: Bool)
    /// A send in one trip to the storage: reads what `sendContext` reads, asks `decide` who is
    /// told (it throws to refuse the send), and stores the message as the call above does, with
    /// the event for those recipients. When `decide` answers nil — the send needs more than the
    /// context (a message request to open or to accept) — nothing is written and this answers
    /// nil. On SQLite the reads and the write are one transaction; on PostgreSQL the write is
    /// one statement committing alone after the read (at READ COMMITTED a transaction's reads
    /// would not hold back a change between them and the write either).
    func appendMessage(
        _ message: MessageRecord, announce: EncodedEvent, deciding decide: @escaping @Sendable (SendContext?) throws -> [UserID]?
    ) async throws -> SettledMessage?
    func message(id: MessageID) async throws -> MessageRecord?
    /// Newest first, seq strictly between `after` and `before`.
    func messages(in dialog: DialogID, after: Int64, before: Int64?, limit: Int) async throws -> [MessageRecord]
    /// The newest message after `after` whose sender is not one of `excluding`, in one statement.
    func lastMessage(in dialog: DialogID, after: Int64, excluding senders: Set<UserID>) async throws -> MessageRecord?
    func markRead(_ dialog: DialogID, by user: UserID, upTo seq: Int64) async throws -> Bool
    /// Dialogs the user sees, newest activity first, after a keyset cursor.
    func dialogs(of user: UserID, after cursor: DialogCursor?, limit: Int) async throws -> [(DialogRecord, Membership)]
    /// Messages from others after the member's read position, `senders`' left out.
    func unreadCount(_ dialog: DialogID, for membership: Membership, ignoring senders: Set<UserID>) async throws -> Int
    /// How many of `user`'s dialogs have messages from others after the user's read position;
    /// in groups, messages from `senders` do not count.
    func unreadDialogCount(of user: UserID, ignoringInGroups senders: Set<UserID>) async throws -> Int

    func insertAttachment(_ attachment: AttachmentRecord) async throws
    /// Inserts the attachment only while its uploader's attachments, it included, come to at most
    /// `quota` bytes (one write, so two uploads at once cannot both slip under it); false when not.
    func insertAttachment(_ attachment: AttachmentRecord, withinQuota quota: Int) async throws -> Bool
    /// The bytes of all the attachments `user` uploaded.
    func attachmentBytes(uploadedBy user: UserID) async throws -> Int
    func attachment(id: AttachmentID) async throws -> AttachmentRecord?
    func attachments(ids: [AttachmentID]) async throws -> [AttachmentRecord]
    /// Whether `user` is a member of a dialog whose messages or avatar hold the attachment.
    /// Whether a message or a dialog avatar holds the attachment.
    func isReferenced(_ attachment: AttachmentID) async throws -> Bool
    func deleteAttachment(_ attachment: AttachmentID) async throws
    func attachmentCount(hash: String) async throws -> Int
    func memberSeesAttachment(_ attachment: AttachmentID, user: UserID) async throws -> Bool

    /// Everyone who shares a dialog with `user`, the user left out.
    func chatPartners(of user: UserID) async throws -> Set<UserID>

    func messageRequest(dialog: DialogID) async throws -> MessageRequestRecord?
    /// Pending requests to `user`, newest first.
    func pendingRequests(to user: UserID) async throws -> [MessageRequestRecord]
    /// Pending → accepted; false when it was not pending.
    func acceptRequest(dialog: DialogID) async throws -> Bool
    /// Removes a pending request with its messages (from `firstSeq` on), and the dialog when
    /// nothing older is left in it. Nil when there was no pending request; else whether the
    /// dialog went too.
    func declineRequest(dialog: DialogID) async throws -> Bool?
}

/// What removing a member did.
public enum MemberRemoval: Sendable, Equatable {
    case notAMember, removed, ownershipPassed(to: UserID), emptied
}

/// Keyset position in the dialog list.
public struct DialogCursor: Sendable, Equatable {
    public var updatedAt: Int64
    public var id: DialogID

    public init(updatedAt: Int64, id: DialogID) {
        self.updatedAt = updatedAt
        self.id = id
    }

    public var encoded: String { Base64URL.encode(Array("\(updatedAt):\(id.rawValue)".utf8)) }

    public init?(encoded: String) {
        guard let bytes = Base64URL.decode(encoded) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let time = Int64(parts[0]) else { return nil }
        updatedAt = time
        id = DialogID(rawValue: String(parts[1]))
    }
}

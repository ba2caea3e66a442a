import Foundation
import ParleyCore
import ParleyProtocol
import ParleyFriends
import ParleyStorage

/// What a device sends.
public struct OutgoingMessage: Sendable {
    public var clientMessageID: String
    public var kind: MessageKind
    public var text: String?
    public var attachmentID: AttachmentID?
    /// Sends on a message the sender can read (its attachment, text and place), not uploaded again.
    public var forwardMessageID: MessageID?
    public var location: Location?

    public init(clientMessageID: String, kind: MessageKind, text: String?, attachmentID: AttachmentID?,
                forwardMessageID: MessageID? = nil, location: Location? = nil) {
        self.forwardMessageID = forwardMessageID
        self.location = location
        self.clientMessageID = clientMessageID
        self.kind = kind
        self.text = text
        self.attachmentID = attachmentID
    }
}

extension ChatService {
    /// Stores the message (committed before this returns) and tells every member's devices.
    /// Sending the same clientMessageId again returns the stored message and tells nobody twice.
    /// The time to the acknowledgement goes to `parley_message_ack_seconds`.
    public func send(_ user: UserID, to id: DialogID, _ outgoing: OutgoingMessage) async throws -> MessageView {
        try await sendMessage(user, to: id, outgoing).view
    }

    /// `send`, with the message's event as it was encoded for the members when the message is
    /// new: the sender's reply carries the same `message`, and the socket splices it from there
    /// instead of encoding it again.
    public func sendMessage(_ user: UserID, to id: DialogID, _ outgoing: OutgoingMessage) async throws -> SentMessage {
        let started = ContinuousClock.now
        let sent = try await commit(user, to: id, outgoing)
        acknowledged.record(ContinuousClock.now - started)
        return sent
    }

    private func commit(_ user: UserID, to id: DialogID, _ outgoing: OutgoingMessage) async throws -> SentMessage {
        try messageLimit.admit(user.rawValue, now: clock.now())
        if outgoing.forwardMessageID == nil, !outgoing.kind.carriesAttachment,
           let sent = try await commitInOneStep(user, to: id, outgoing) {
            return sent
        }
        // The dialog, its members and request and the sender's standing in one read, for the
        // membership check, a private dialog's reach and the views; then the write.
        guard let context = try await store.sendContext(dialog: id, sender: user), context.members.contains(where: { $0.userID == user }) else {
            throw ChatErrors.dialogNotFound
        }
        let (dialog, members) = (context.dialog, context.members)
        let checked = try Self.checkedText(outgoing)
        let clientID = checked.clientID
        var text = checked.text
        var attachmentID = outgoing.attachmentID, location = outgoing.location
        var forwardedFrom: ForwardedFrom?
        if let forwardID = outgoing.forwardMessageID {
            // What is forwarded is the original: its attachment (the same stored file), text and place.
            let original = try await readableMessage(user, forwardID)
            guard original.kind != .call else { throw ChatErrors.notForwardable }
            guard original.kind == outgoing.kind, outgoing.attachmentID == nil || outgoing.attachmentID == original.attachmentID
            else { throw ChatErrors.attachmentKindMismatch }
            (attachmentID, location) = (original.attachmentID, original.location)
            text = text ?? original.text
            forwardedFrom = original.forwardedFrom ?? ForwardedFrom(messageId: original.id.rawValue, senderId: original.senderID.rawValue)
        }
        if outgoing.kind.carriesAttachment {
            guard location == nil else { throw ChatErrors.attachmentKindMismatch }
            guard let attachmentID else { throw ChatErrors.attachmentRequired }
            guard let attachment = try await store.attachment(id: attachmentID),
                  forwardedFrom != nil || attachment.uploaderID == user else {
                throw ChatErrors.attachmentNotFound
            }
            guard attachment.kind == outgoing.kind.rawValue else { throw ChatErrors.attachmentKindMismatch }
        } else {
            location = try Self.checkedPlain(outgoing.kind, text: text, attachmentID: attachmentID, location: location)
        }
        let other = dialog.type == .private ? members.first(where: { $0.userID != user })?.userID : nil
        let standing = context.standing
        var gate = PrivateGate.open
        if let other, let reach = standing.reach {
            gate = try await privateGate(user, id, to: other, reach: reach, request: context.request)
        }
        let record = MessageRecord(
            id: .generate(), dialogID: id, seq: 0, senderID: user, clientMessageID: clientID, kind: outgoing.kind,
            text: text, attachmentID: attachmentID, call: nil, location: location, forwardedFrom: forwardedFrom, createdAt: clock.now())
        return try await deliver(record, members: members, gate: gate, blockers: standing.blockers)
    }

    /// A text or a place that is not a forward — nothing to look up but the dialog's state: the
    /// checks and the write in one trip to the storage instead of a read and a write (one
    /// transaction on SQLite; on PostgreSQL the read, then one statement committing alone). Nil,
    /// with nothing written, when the send needs more than that state (a message request to open
    /// or to accept): the step-by-step path above takes it. Refusals are those
    /// of the step-by-step path, in its order (not a member before anything about the content).
    private func commitInOneStep(_ user: UserID, to id: DialogID, _ outgoing: OutgoingMessage) async throws -> SentMessage? {
        let content = Result { () throws -> (clientID: String, text: String?, location: Location?) in
            let (clientID, text) = try Self.checkedText(outgoing)
            return (clientID, text, try Self.checkedPlain(outgoing.kind, text: text, attachmentID: outgoing.attachmentID, location: outgoing.location))
        }
        let checked = (try? content.get()) ?? (clientID: "", text: nil, location: nil)
        let record = MessageRecord(
            id: .generate(), dialogID: id, seq: 0, senderID: user, clientMessageID: checked.clientID, kind: outgoing.kind,
            text: checked.text, attachmentID: nil, call: nil, location: checked.location, forwardedFrom: nil, createdAt: clock.now())
        // Encoded here, before the write (see `deliver`).
        let announce = EncodedEvent(.messageNew(MessageEvent(message: view(of: record, members: [], attachments: [:]))))
        let settled = try await store.appendMessage(record, announce: announce) { context in
            guard let context, context.members.contains(where: { $0.userID == user }) else { throw ChatErrors.dialogNotFound }
            _ = try content.get()
            var gate = PrivateGate.open
            if context.dialog.type == .private, let other = context.members.first(where: { $0.userID != user })?.userID,
               let reach = context.standing.reach {
                guard let settled = try Self.settledGate(user, to: other, reach: reach, request: context.request) else { return nil }
                gate = settled
            }
            return Self.recipients(of: context.members, blockers: context.standing.blockers, gate: gate)
        }
        guard let settled else { return nil }
        if settled.isNew {
            return SentMessage(view: view(of: settled.message, members: settled.members, attachments: [:]), announced: announce)
        }
        let attachments = try await attachmentsByID(for: [settled.message])
        return SentMessage(view: view(of: settled.message, members: settled.members, attachments: attachments), announced: nil)
    }

    /// The client id and the text as stored: trimmed, and within their limits.
    static func checkedText(_ outgoing: OutgoingMessage) throws -> (clientID: String, text: String?) {
        let clientID = outgoing.clientMessageID.trimming(.whitespaces)
        guard !clientID.isEmpty, clientID.count <= ChatRules.maxClientMessageIDLength else { throw ChatErrors.clientMessageIDRequired }
        let text = outgoing.text.map { $0.trimming(.whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let text, text.count > ChatRules.maxTextLength { throw ChatErrors.textTooLong }
        return (clientID, text)
    }

    /// A message of a kind without an attachment: a text has text and nothing else, a place a
    /// valid place (returned as stored); call records are the server's own.
    static func checkedPlain(_ kind: MessageKind, text: String?, attachmentID: AttachmentID?, location: Location?) throws -> Location? {
        switch kind {
        case .call: throw ChatErrors.callRecordsAreServerMade
        case .text:
            guard text != nil else { throw ChatErrors.emptyMessage }
            guard attachmentID == nil, location == nil else { throw ChatErrors.attachmentKindMismatch }
            return nil
        case .location:
            guard let place = location else { throw ChatErrors.invalidLocation }
            guard attachmentID == nil else { throw ChatErrors.attachmentKindMismatch }
            return try ChatRules.location(place)
        case .image, .video, .audio: throw ChatErrors.attachmentRequired
        }
    }

    /// Who is told of a message: the members, but not those who blocked the sender, nor the
    /// receiver of a request that waits or that this message opens (they get the request).
    static func recipients(of members: [Membership], blockers: Set<UserID>, gate: PrivateGate) -> [UserID] {
        var recipients = members.map(\.userID).filter { !blockers.contains($0) }
        switch gate {
        case .open: break
        case .waiting(let receiver), .opening(let receiver): recipients.removeAll { $0 == receiver }
        }
        return recipients
    }

    /// A message `user` can read: in a dialog they are in, not cleared from their view, and not
    /// from someone they blocked in a group. Anything else does not exist for them.
    func readableMessage(_ user: UserID, _ id: MessageID) async throws -> MessageRecord {
        guard let message = try await store.message(id: id),
              let membership = try await store.membership(user, in: message.dialogID), message.seq > membership.clearedSeq,
              let dialog = try await store.dialog(id: message.dialogID)
        else { throw ChatErrors.messageNotFound }
        if dialog.type == .group, try await friends.blocks(by: user).contains(where: { $0.blocked == message.senderID }) {
            throw ChatErrors.messageNotFound
        }
        return message
    }

    /// Writes a finished call into the pair's private dialog (creating it if need be).
    public func recordCall(_ call: CallRecord, caller: UserID, callee: UserID) async throws -> MessageView {
        let key = Self.pairKey(caller, callee)
        let dialog: DialogRecord
        if let existing = try await store.privateDialog(pairKey: key) {
            dialog = existing
        } else {
            let now = clock.now()
            dialog = DialogRecord(id: .generate(), type: .private, name: nil, avatarAttachmentID: nil, createdBy: caller,
                                  createdAt: now, updatedAt: now, lastMessageSeq: 0)
            try await store.createDialog(dialog, pairKey: key, members: [caller, callee])
        }
        let record = MessageRecord(
            id: .generate(), dialogID: dialog.id, seq: 0, senderID: caller, clientMessageID: "call:\(call.callId)", kind: .call,
            text: nil, attachmentID: nil, call: call, createdAt: clock.now())
        return try await deliver(record).view
    }

    /// Stores the message and tells the members: the message and its `message.new` events in one
    /// transaction (a crash keeps both or neither), delivered once that has committed. `members`,
    /// when the caller already has them, saves reading them again: storing a message changes only
    /// the sender's own read position, which its view does not show.
    ///
    /// A message request's receiver is not sent its messages while it waits: the first one reaches
    /// them as the `message.request` that opens it (`gate`).
    func deliver(_ record: MessageRecord, members known: [Membership]? = nil, gate: PrivateGate = .open,
                 blockers knownBlockers: Set<UserID>? = nil) async throws -> SentMessage {
        let members: [Membership]
        if let known { members = known } else { members = try await store.members(of: record.dialogID) }
        let attachments = try await attachmentsByID(for: [record])
        // Whoever blocked the sender does not get their messages (in a group they share).
        let blockers: Set<UserID>
        if let knownBlockers { blockers = knownBlockers } else { blockers = try await friends.blockers(of: record.senderID) }
        let recipients = Self.recipients(of: members, blockers: blockers, gate: gate)
        var opening: OpenedRequest?
        if case .opening(let receiver) = gate {
            let request = MessageRequestRecord(dialogID: record.dialogID, from: record.senderID, to: receiver, status: .pending,
                                               firstSeq: 0, createdAt: record.createdAt)
            opening = OpenedRequest(request: request) { [self] stored in
                .messageRequest(MessageRequestEvent(request: self.requestView(
                    request, status: "pending", message: self.view(of: stored, members: members, attachments: attachments))))
            }
        }
        // The event is encoded here, before the write, not on the storage's writer thread. Nothing
        // in it depends on the number the write gives the message, and nobody has read it yet (its
        // number is past every member's read position): `readBy` is empty.
        let announce = EncodedEvent(.messageNew(MessageEvent(message: view(of: record, members: [], attachments: attachments))))
        let (stored, isNew) = try await store.appendMessage(record, announce: announce, to: recipients, opening: opening)
        if isNew { return SentMessage(view: view(of: stored, members: members, attachments: attachments), announced: announce) }
        return SentMessage(view: view(of: stored, members: members, attachments: try await attachmentsByID(for: [stored])), announced: nil)
    }

    /// History, newest first, `limit` at a time; `before` is a message id from the previous page.
    public func history(_ user: UserID, _ id: DialogID, before: MessageID?, limit: Int) async throws -> (messages: [MessageView], next: MessageID?) {
        let dialog = try await memberDialog(user, id)
        guard let membership = try await store.membership(user, in: id) else { throw ChatErrors.dialogNotFound }
        let limit = min(max(limit, 1), 100)
        var beforeSeq: Int64?
        if let before {
            guard let anchor = try await store.message(id: before), anchor.dialogID == id else { throw ChatErrors.messageNotFound }
            beforeSeq = anchor.seq
        }
        let page = try await store.messages(in: id, after: membership.clearedSeq, before: beforeSeq, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let members = try await store.members(of: id)
        // Messages of someone the reader blocked stay out of their history in a group they share
        // (their old private chat keeps what was said); the cursor still moves past them.
        let blocked = dialog.type == .group ? Set(try await friends.blocks(by: user).map(\.blocked)) : []
        let visible = blocked.isEmpty ? shown : shown.filter { !blocked.contains($0.senderID) }
        return (try await views(visible, members: members), page.count > limit ? shown.last?.id : nil)
    }

    /// Marks everything up to a message read and tells the dialog (read receipts).
    public func markRead(_ user: UserID, _ id: DialogID, upTo messageID: MessageID) async throws {
        _ = try await memberDialog(user, id)
        guard let message = try await store.message(id: messageID), message.dialogID == id else { throw ChatErrors.messageNotFound }
        guard try await store.markRead(id, by: user, upTo: message.seq) else { return }
        let blockers = try await friends.blockers(of: user)
        let members = try await store.members(of: id).map(\.userID).filter { !blockers.contains($0) }
        await events.publish(
            .messageRead(ReadEvent(dialogId: id.rawValue, userId: user.rawValue, upToMessageId: messageID.rawValue,
                               readAt: WireTime.string(clock.now()))),
            to: members)
    }

    /// "… is typing": to the other members' connected devices, not stored.
    public func typing(_ user: UserID, _ id: DialogID) async throws {
        _ = try await memberDialog(user, id)
        let blockers = try await friends.blockers(of: user)
        let others = try await store.members(of: id).map(\.userID).filter { $0 != user && !blockers.contains($0) }
        events.publishEphemeral(.typing(TypingEvent(dialogId: id.rawValue, userId: user.rawValue)), to: others)
    }

    func views(_ messages: [MessageRecord], members: [Membership]) async throws -> [MessageView] {
        let attachments = try await attachmentsByID(for: messages)
        return messages.map { view(of: $0, members: members, attachments: attachments) }
    }

    func attachmentsByID(for messages: [MessageRecord]) async throws -> [AttachmentID: AttachmentRecord] {
        Dictionary(uniqueKeysWithValues: try await store.attachments(ids: messages.compactMap(\.attachmentID)).map { ($0.id, $0) })
    }

    /// A message as members see it; `attachments` must hold its attachment, if it has one.
    func view(of message: MessageRecord, members: [Membership], attachments: [AttachmentID: AttachmentRecord]) -> MessageView {
        MessageView(
            id: message.id.rawValue, dialogId: message.dialogID.rawValue, senderId: message.senderID.rawValue,
            clientMessageId: message.clientMessageID, kind: message.kind, text: message.text,
            attachment: message.attachmentID.flatMap { attachments[$0] }.map(view),
            call: message.call, location: message.location, forwardedFrom: message.forwardedFrom,
            createdAt: WireTime.string(message.createdAt),
            readBy: members.filter { $0.userID != message.senderID && $0.readSeq >= message.seq }.map(\.userID.rawValue))
    }

    func view(_ attachment: AttachmentRecord) -> AttachmentView {
        AttachmentView(
            id: attachment.id.rawValue, kind: attachment.kind, contentType: attachment.contentType, size: attachment.size,
            durationMs: attachment.durationMs, width: attachment.width, height: attachment.height,
            url: "\(settings.publicBaseURL)/v1/attachments/\(attachment.id.rawValue)")
    }
}


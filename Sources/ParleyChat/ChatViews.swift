import Foundation
import ParleyCore

/// `message` as clients see it (REST and `message.new`).
public struct MessageView: Encodable, Sendable, Equatable {
    public let id: String
    public let dialogId: String
    public let senderId: String
    public let clientMessageId: String
    public let kind: MessageKind
    public let text: String?
    public let attachment: AttachmentView?
    public let call: CallRecord?
    public let createdAt: String
    public let readBy: [String]
}

/// An attachment's description, with where to fetch its bytes.
public struct AttachmentView: Encodable, Sendable, Equatable {
    public let id: String
    public let kind: String
    public let contentType: String
    public let size: Int
    public let durationMs: Int?
    public let width: Int?
    public let height: Int?
    public let url: String
}

/// A dialog in the list: what the conversation screen needs before opening it.
public struct DialogSummary: Sendable {
    public let dialog: DialogRecord
    public let memberIDs: [UserID]
    public let lastMessage: MessageView?
    public let unreadCount: Int
}

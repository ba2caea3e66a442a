import Foundation
import ParleyCore
import ParleyProtocol

/// A dialog in the list: what the conversation screen needs before opening it.
public struct DialogSummary: Sendable {
    public let dialog: DialogRecord
    public let memberIDs: [UserID]
    public let lastMessage: MessageView?
    public let unreadCount: Int
}

import Foundation
import ParleyCore
import ParleyProtocol

/// A private dialog a stranger opened by writing first: it waits for the receiver until they
/// accept it (a normal chat from then on) or decline it (its messages go, for both).
public struct MessageRequestRecord: Sendable, Equatable {
    public enum Status: String, Sendable { case pending, accepted }

    public var dialogID: DialogID
    public var from: UserID
    public var to: UserID
    public var status: Status
    /// The seq of the request's first message: a decline removes it and everything after, so an
    /// older history of the pair (former friends) stays.
    public var firstSeq: Int64
    public var createdAt: Date
}

/// A pending request as its receiver lists it.
public struct MessageRequestSummary: Sendable {
    public let request: MessageRequestRecord
    public let firstMessage: MessageView?
}

/// A request to record with the message that opens it, and the event that tells its receiver.
public struct OpenedRequest: Sendable {
    public var request: MessageRequestRecord
    public var announce: @Sendable (MessageRecord) -> RealtimeEvent
}

extension ChatErrors {
    public static let messageRequestNotFound = ParleyError(.notFound, code: "message_request_not_found", "No such message request")
    public static let messageRequestPending = ParleyError(
        .conflict, code: "message_request_pending", "Accept this person's message request before writing back")
}

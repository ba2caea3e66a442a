import Foundation
import ParleyCore
import ParleyProtocol

/// One event of a user's numbered sequence, as stored and sent.
public struct StoredEvent: Sendable, Equatable {
    public let userID: UserID
    public let seq: Int64
    public let event: RealtimeEvent
    public let createdAt: Date
    /// The one device that must not get it, if any.
    public var exceptSession: SessionID? = nil
    /// The payload as stored (`RealtimeEvent.payloadJSON()`), when at hand: the frame is then
    /// put together around it instead of encoding the event again for every recipient.
    public var payloadJSON: String? = nil

    public var type: String { event.type }

    /// The wire frame: the payload's fields beside `type` and `seq`.
    public var frame: String {
        if let payloadJSON, let text = ServerFrame.eventText(type: event.type, seq: seq, payloadJSON: payloadJSON) { return text }
        return ServerFrame.event(event, seq: seq).text
    }
}

import Foundation
import ParleyCore
import ParleyProtocol

/// One event of a user's numbered sequence, as stored and sent.
public struct StoredEvent: Sendable, Equatable {
    public let userID: UserID
    public let seq: Int64
    /// The frame's `type`.
    public let type: String
    public let createdAt: Date
    /// The one device that must not get it, if any.
    public var exceptSession: SessionID? = nil
    /// The payload as stored (`RealtimeEvent.payloadJSON()`), when at hand: the frame is then
    /// put together around it instead of encoding the event again for every recipient.
    public var payloadJSON: String? = nil
    /// The value, for an event made or read on this node; nil for one another node's wake-up
    /// carried as its JSON (`init(carried:…)`), which a socket needs only as text.
    private let value: RealtimeEvent?

    public init(userID: UserID, seq: Int64, event: RealtimeEvent, createdAt: Date, exceptSession: SessionID? = nil,
                payloadJSON: String? = nil) {
        self.userID = userID
        self.seq = seq
        type = event.type
        self.createdAt = createdAt
        self.exceptSession = exceptSession
        self.payloadJSON = payloadJSON
        value = event
    }

    /// An event another node stored and carried whole in its wake-up: kept as its JSON, decoded
    /// only if something asks for `event`. For a type and payload `canCarry` takes, so `frame`
    /// never needs the value.
    public init(carried type: String, payloadJSON: String, userID: UserID, seq: Int64, createdAt: Date, exceptSession: SessionID?) {
        self.userID = userID
        self.seq = seq
        self.type = type
        self.createdAt = createdAt
        self.exceptSession = exceptSession
        self.payloadJSON = payloadJSON
        value = nil
    }

    /// Whether an event of `type` with this payload can be carried as its JSON: a type this
    /// version knows, and a payload the frame can be put together around.
    public static func canCarry(type: String, payloadJSON: String) -> Bool {
        RealtimeEvent.types.contains(type) && ServerFrame.hasEventText(type: type, payloadJSON: payloadJSON)
    }

    /// The event as a value: a carried one is decoded from its payload each time it is asked
    /// for (nil if it does not decode).
    public var event: RealtimeEvent? {
        if let value { return value }
        return payloadJSON.flatMap { RealtimeEvent.decode(type: type, payload: $0) }
    }

    /// The wire frame: the payload's fields beside `type` and `seq`.
    public var frame: String {
        if let payloadJSON, let text = ServerFrame.eventText(type: type, seq: seq, payloadJSON: payloadJSON) { return text }
        if let value { return ServerFrame.event(value, seq: seq).text }
        return ServerFrame.eventText(type: type, seq: seq, payloadJSON: "{}") ?? "{}"   // not reached: `canCarry` checks
    }
}

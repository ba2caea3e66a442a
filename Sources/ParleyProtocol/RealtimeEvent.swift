import Foundation
import ParleyCore

/// Every event the server sends on the realtime socket: one catalogue, one value per event.
/// Stored events keep their payload as JSON beside their `type`; `decode(type:payload:)` turns
/// them back into values, and `ServerFrame` is the one place a frame is written.
public enum RealtimeEvent: Sendable, Equatable {
    case friendRequest(FriendRequestEvent)
    case friendAccepted(UserRefEvent)
    case friendRemoved(UserRefEvent)
    case messageNew(MessageEvent)
    case messageRead(ReadEvent)
    case typing(TypingEvent)
    case dialogUpdated(DialogEvent)
    case dialogDeleted(DialogRefEvent)
    case messageRequest(MessageRequestEvent)
    case userUpdated(UserUpdatedEvent)
    case storyNew(StoryEvent)
    case callIncoming(CallIncomingEvent)
    case callAccepted(CallRefEvent)
    case callEnded(CallEndedEvent)
    case callMedia(CallMediaEvent)

    /// The frame's `type`.
    public var type: String {
        switch self {
        case .friendRequest: "friend.request"
        case .friendAccepted: "friend.accepted"
        case .friendRemoved: "friend.removed"
        case .messageNew: "message.new"
        case .messageRead: "message.read"
        case .typing: "typing"
        case .dialogUpdated: "dialog.updated"
        case .dialogDeleted: "dialog.deleted"
        case .messageRequest: "message.request"
        case .userUpdated: "user.updated"
        case .storyNew: "story.new"
        case .callIncoming: "call.incoming"
        case .callAccepted: "call.accepted"
        case .callEnded: "call.ended"
        case .callMedia: "call.media"
        }
    }

    /// Every type the catalogue knows (for the contract check against docs/openapi.yaml).
    public static let types = [
        "friend.request", "friend.accepted", "friend.removed", "message.new", "message.read", "typing", "dialog.updated",
        "dialog.deleted", "message.request", "user.updated", "story.new", "call.incoming", "call.accepted", "call.ended", "call.media",
    ]

    /// The payload value, to encode beside `type` (and `seq`).
    var payload: any Encodable & Sendable {
        switch self {
        case .friendRequest(let value): value
        case .friendAccepted(let value), .friendRemoved(let value): value
        case .messageNew(let value): value
        case .messageRead(let value): value
        case .typing(let value): value
        case .dialogUpdated(let value): value
        case .dialogDeleted(let value): value
        case .messageRequest(let value): value
        case .userUpdated(let value): value
        case .storyNew(let value): value
        case .callIncoming(let value): value
        case .callAccepted(let value): value
        case .callEnded(let value): value
        case .callMedia(let value): value
        }
    }

    /// The payload as stored: a JSON object of its fields. `message.new`'s, encoded for every
    /// message sent, is written by hand (the same text; `MessageEvent.jsonText()`).
    public func payloadJSON() -> String {
        if case .messageNew(let value) = self, let text = value.jsonText() { return text }
        return String(decoding: (try? ProtocolCoding.encoder.encode(payload)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A stored event back as a value; nil for a type this build does not know (written by a
    /// newer version) or a payload that does not fit it.
    public static func decode(type: String, payload: String) -> RealtimeEvent? {
        let data = Data(payload.utf8)
        func value<T: Decodable>(_: T.Type) -> T? { try? ProtocolCoding.decoder.decode(T.self, from: data) }
        switch type {
        case "friend.request": return value(FriendRequestEvent.self).map(Self.friendRequest)
        case "friend.accepted": return value(UserRefEvent.self).map(Self.friendAccepted)
        case "friend.removed": return value(UserRefEvent.self).map(Self.friendRemoved)
        case "message.new": return value(MessageEvent.self).map(Self.messageNew)
        case "message.read": return value(ReadEvent.self).map(Self.messageRead)
        case "typing": return value(TypingEvent.self).map(Self.typing)
        case "dialog.updated": return value(DialogEvent.self).map(Self.dialogUpdated)
        case "dialog.deleted": return value(DialogRefEvent.self).map(Self.dialogDeleted)
        case "message.request": return value(MessageRequestEvent.self).map(Self.messageRequest)
        case "user.updated": return value(UserUpdatedEvent.self).map(Self.userUpdated)
        case "story.new": return value(StoryEvent.self).map(Self.storyNew)
        case "call.incoming": return value(CallIncomingEvent.self).map(Self.callIncoming)
        case "call.accepted": return value(CallRefEvent.self).map(Self.callAccepted)
        case "call.ended": return value(CallEndedEvent.self).map(Self.callEnded)
        case "call.media": return value(CallMediaEvent.self).map(Self.callMedia)
        default: return nil
        }
    }
}

/// The protocol's one JSON encoder and decoder: RFC 3339 whole-second dates, sorted keys.
public enum ProtocolCoding {
    public static let encoder = WireTime.jsonEncoder()
    public static let decoder = JSONDecoder()
}

import Foundation
import ParleyCore

/// One event as stored and sent: `{"type": …, "seq": …, …payload fields}`.
public struct StoredEvent: Sendable, Equatable {
    public let userID: UserID
    public let seq: Int64
    public let type: String
    /// The payload: a JSON object, as text.
    public let payload: String
    public let createdAt: Date
    /// The one device that must not get it, if any.
    public var exceptSession: SessionID? = nil

    /// The wire frame: the payload's fields beside `type` and `seq`.
    public var frame: String { EventFrame.compose(type: type, seq: seq, payload: payload) }
}

enum EventFrame {
    /// `{"type":T,"seq":N}` merged with the payload object's members (payload must be an object).
    static func compose(type: String, seq: Int64?, payload: String) -> String {
        var head = "{\"type\":" + quote(type)
        if let seq { head += ",\"seq\":\(seq)" }
        let body = payload.trimmingCharacters(in: .whitespaces)
        guard body.hasPrefix("{"), body.count > 2 else { return head + "}" }
        return head + "," + body.dropFirst()
    }

    static func quote(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static let encoder = WireTime.jsonEncoder()

    /// Encodes an event payload; anything that is not a JSON object becomes `{}`.
    static func encode(_ payload: any Encodable) -> String {
        guard let data = try? encoder.encode(payload) else { return "{}" }
        let text = String(decoding: data, as: UTF8.self)
        return text.hasPrefix("{") ? text : "{}"
    }
}

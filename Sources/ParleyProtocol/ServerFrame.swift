import Foundation
import ParleyCore

/// Everything the server writes on the realtime socket, and the one place it is encoded:
/// - an event: `{"type": …, "seq": N, …payload}` (`seq` absent for events that are not stored);
/// - a reply: `{"replyTo": id, "ok": true, …fields}` or `{"replyTo": id, "ok": false, "error": {code, message}}`;
/// - the `hello` that opens every connection.
public enum ServerFrame: Sendable {
    case event(RealtimeEvent, seq: Int64?)
    case reply(to: FrameID?, CommandReply)
    case failure(to: FrameID?, ParleyError)
    case hello(Hello)

    /// The frame as JSON text.
    public var text: String {
        let data = (try? ProtocolCoding.encoder.encode(Encoded(frame: self))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A stored event's frame from its payload as already encoded (`RealtimeEvent.payloadJSON()`,
    /// a JSON object): `type` and `seq` go in front of the payload's fields, so an event sent to
    /// many users is encoded once, not once per user. The same JSON as ``text`` gives, key order
    /// aside. Nil when `payload` is not an object (the caller encodes the event instead).
    /// Whether `eventText` puts a frame together for this type and payload (for any `seq`).
    public static func hasEventText(type: String, payloadJSON payload: String) -> Bool {
        let bytes = payload.utf8
        return isPlain(type) && bytes.first == UInt8(ascii: "{") && bytes.last == UInt8(ascii: "}")
    }

    public static func eventText(type: String, seq: Int64, payloadJSON payload: String) -> String? {
        guard isPlain(type) else { return nil }
        return object(leading: "\"type\":\"" + type + "\",\"seq\":" + String(seq), fields: payload)
    }

    /// A reply whose fields are those of an encoded JSON object — `message.send`'s reply carries
    /// the `message` its `message.new` event carries, so it is put together around that event's
    /// payload (`EncodedEvent`) instead of encoding the message again. The same JSON as ``text``
    /// for `.reply(to: id, .sent(message))` gives, key order aside. Nil when `id` is not a plain
    /// string or integer, or `fields` not an object (the caller encodes the reply instead).
    public static func replyText(to id: FrameID?, fieldsJSON fields: String) -> String? {
        let replyTo: String
        switch id {
        case .string(let text) where isPlain(text): replyTo = "\"" + text + "\""
        case .integer(let whole): replyTo = String(whole)
        default: return nil
        }
        return object(leading: "\"replyTo\":" + replyTo + ",\"ok\":true", fields: fields)
    }

    /// A JSON string's content that needs no escaping (no control character, quote or backslash).
    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// `{` + `leading` members + the members of the JSON object `fields` + `}`; nil when `fields`
    /// is not an object. Works on the UTF-8 bytes: a `Character` view would break every payload
    /// into grapheme clusters (counted again by a generic append) for a frame sent per recipient.
    private static func object(leading: String, fields: String) -> String? {
        let bytes = fields.utf8
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
        let inner = fields[bytes.index(after: bytes.startIndex)..<bytes.index(before: bytes.endIndex)]
        var text = ""
        text.reserveCapacity(bytes.count + leading.utf8.count + 4)
        text.append("{")
        text.append(leading)
        if inner.utf8.contains(where: { !Self.isJSONWhitespace($0) }) {
            text.append(",")
            text.append(contentsOf: inner)
        }
        text.append("}")
        return text
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The `hello`: who this connection is, where its event sequence stands, the TURN servers
    /// (as `GET /v1/calls/ice-servers` answers), so a device woken for a call can answer it
    /// without another request, and how often the device should `ping` while it has nothing
    /// else to send (no reply within that time, 10 s at most: the connection is gone, reconnect).
    public struct Hello: Sendable, Encodable {
        public let userId: String
        public let sessionId: String
        public let latestSeq: Int64
        public let iceServers: [ICEServer]
        public let iceServersTtlSeconds: Int
        public let pingIntervalSeconds: Int

        public init(userId: String, sessionId: String, latestSeq: Int64, iceServers: [ICEServer], iceServersTtlSeconds: Int,
                    pingIntervalSeconds: Int) {
            self.userId = userId
            self.sessionId = sessionId
            self.latestSeq = latestSeq
            self.iceServers = iceServers
            self.iceServersTtlSeconds = iceServersTtlSeconds
            self.pingIntervalSeconds = pingIntervalSeconds
        }
    }

    enum Key: String, CodingKey { case type, seq, replyTo, ok, error, code, message, retryAfter }

    /// Writes the envelope's keys and the payload's fields into one JSON object.
    struct Encoded: Encodable {
        let frame: ServerFrame

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            switch frame {
            case .event(let event, let seq):
                try container.encode(event.type, forKey: .type)
                try container.encodeIfPresent(seq, forKey: .seq)
                try event.payload.encode(to: encoder)
            case .reply(let id, let reply):
                try container.encode(id, forKey: .replyTo)
                try container.encode(true, forKey: .ok)
                try reply.encodeFields(to: encoder)
            case .failure(let id, let error):
                try container.encode(id, forKey: .replyTo)
                try container.encode(false, forKey: .ok)
                var body = container.nestedContainer(keyedBy: Key.self, forKey: .error)
                try body.encode(error.code, forKey: .code)
                try body.encode(error.message, forKey: .message)
                // A refusal for now (`rate_limited`): the seconds to wait, as REST's `Retry-After`.
                try body.encodeIfPresent(error.retryAfter, forKey: .retryAfter)
            case .hello(let hello):
                try container.encode("hello", forKey: .type)
                try hello.encode(to: encoder)
            }
        }
    }
}

/// One entry of `RTCConfiguration.iceServers` (W3C webrtc-pc §4.2.1, `RTCIceServer`): a TURN
/// server with credentials of its user's own.
public struct ICEServer: Codable, Sendable, Equatable {
    public var urls: [String]
    public var username: String
    public var credential: String

    public init(urls: [String], username: String, credential: String) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}

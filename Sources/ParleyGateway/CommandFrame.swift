import Foundation
import ParleyCore

/// The envelope of a client frame: `{"id": …, "type": "…", …}`. The id may be a string or a
/// number and is echoed back as given.
struct CommandFrame {
    let idJSON: String?
    let type: String

    /// Parses the envelope; a frame that is not an object with a string `type` is refused.
    static func parse(_ bytes: [UInt8]) -> Result<CommandFrame, ParleyError> {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            return .failure(ParleyError.badRequest("A frame is a JSON object with a type", code: "invalid_json"))
        }
        let id = object["id"].flatMap(Self.idJSON)
        guard let type = object["type"] as? String, !type.isEmpty else {
            return .failure(ParleyError(.badRequest, code: "missing_field", "type is required"))
        }
        return .success(CommandFrame(idJSON: id, type: type))
    }

    /// The envelope's id when the rest is unreadable (to still answer it).
    static func bestEffortID(_ bytes: [UInt8]) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any])?["id"].flatMap(idJSON)
    }

    /// A string or number id, re-serialised as JSON (anything else is no id).
    static func idJSON(_ value: Any) -> String? {
        if let text = value as? String { return ReplyFrame.quote(text) }
        guard value is NSNumber, let data = try? JSONSerialization.data(withJSONObject: [value]) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return String(text.dropFirst().dropLast())
    }
}

/// Replies: `{"replyTo": id, "ok": true, …}` or `{"replyTo": id, "ok": false, "error": {code, message}}`.
enum ReplyFrame {
    static let encoder = WireTime.jsonEncoder()

    static func ok(_ id: String?, _ fields: (any Encodable)?) -> String {
        var text = "{\"replyTo\":\(id ?? "null"),\"ok\":true"
        if let fields, let data = try? encoder.encode(fields) {
            let body = String(decoding: data, as: UTF8.self)
            if body.hasPrefix("{"), body.count > 2 { text += "," + body.dropFirst().dropLast() }
        }
        return text + "}"
    }

    static func error(_ id: String?, _ error: ParleyError) -> String {
        "{\"replyTo\":\(id ?? "null"),\"ok\":false,\"error\":{\"code\":\(quote(error.code)),\"message\":\(quote(error.message))}}"
    }

    static func quote(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}

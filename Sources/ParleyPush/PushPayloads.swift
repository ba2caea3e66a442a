import Foundation

/// The JSON bodies Parley sends through APNs: pure values, no I/O.
///
/// VoIP pushes carry what CallKit needs before the realtime socket is back: the call's id, who
/// calls and with what media — and, when the ring ends before the app answered, the same call id
/// with the reason, so the app ends the CallKit call it reported. That second push is a VoIP push
/// too: iOS wakes a terminated or suspended app only for VoIP pushes, and an alert or background
/// push would leave the ringing CallKit screen up. Apple requires every VoIP push to report a call,
/// so the app reports the ended call (if it no longer knows it) and ends it at once with the
/// reason (`CXCallEndedReason.unanswered`, `.remoteEnded`, `.answeredElsewhere`, …).
public enum PushPayloads {
    public struct Caller: Sendable, Codable, Equatable {
        public var id: String
        public var name: String
    }

    /// `{"aps": {}, "type": "call.incoming", "callId", "from": {id, name}, "media"}`.
    public static func incomingCall(callID: String, from caller: Caller, media: String) -> Data {
        encode(VoIPBody(type: "call.incoming", callId: callID, from: caller, media: media, reason: nil))
    }

    /// `{"aps": {}, "type": "call.ended", "callId", "reason"}`.
    public static func callEnded(callID: String, reason: String) -> Data {
        encode(VoIPBody(type: "call.ended", callId: callID, from: nil, media: nil, reason: reason))
    }

    /// An alert: `aps.alert {title, body}`, sound, `badge`, `thread-id` (one notification group
    /// per dialog), and Parley's own fields beside `aps` for the app to open the right screen.
    public static func alert(title: String, body: String, badge: Int?, threadID: String?, fields: [String: String]) -> Data {
        var object: [String: Any] = fields
        var aps: [String: Any] = ["alert": ["title": title, "body": body], "sound": "default"]
        if let badge { aps["badge"] = badge }
        if let threadID { aps["thread-id"] = threadID }
        object["aps"] = aps
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{\"aps\":{}}".utf8)
    }

    /// What a message alert says: its text, or what was sent when there is none.
    public static func preview(kind: String, text: String?, previews: Bool) -> String {
        guard previews else { return "New message" }
        switch kind {
        case "text": return String((text ?? "").prefix(180))
        case "image": return "Photo"
        case "video": return "Video"
        case "audio": return "Audio message"
        case "location": return "Location"
        default: return "New message"
        }
    }

    struct VoIPBody: Encodable {
        struct Empty: Encodable {}
        var aps = Empty()
        var type: String
        var callId: String
        var from: Caller?
        var media: String?
        var reason: String?
    }

    static func encode(_ body: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(body)) ?? Data("{\"aps\":{}}".utf8)
    }
}

import Foundation

/// A frame from the realtime socket: its JSON object and when it arrived.
public struct ServerFrame: @unchecked Sendable {   // the JSON values are only read
    public let json: [String: Any]
    public let receivedAt: ContinuousClock.Instant

    init?(text: String, receivedAt: ContinuousClock.Instant) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
        json = object
        self.receivedAt = receivedAt
    }

    public var type: String? { json["type"] as? String }
    public var replyTo: String? { json["replyTo"] as? String }
    public var ok: Bool { json["ok"] as? Bool ?? false }
    public var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    public subscript(key: String) -> Any? { json[key] }
}

import Foundation

/// A frame from the realtime socket: its text, when it arrived, and the members the load
/// generator's hot path reads, found by one ``JSONScanner`` pass. The whole JSON object is built
/// only when asked (``json``, ``subscript(_:)``), which the calls and idle scenarios do a few
/// times a call; chat reads the scanned members of thousands of frames a second.
public struct ServerFrame: Sendable {
    public let text: String
    public let receivedAt: ContinuousClock.Instant
    public let type: String?
    public let replyTo: String?
    public let ok: Bool
    /// The `message` member's `senderId` and `text`, where it is an object that has them.
    private let messageSender: JSONScanner.StringRange?
    private let messageText: JSONScanner.StringRange?

    /// Nil unless `text` is one JSON object.
    init?(text: String, receivedAt: ContinuousClock.Instant) {
        var text = text
        text.makeContiguousUTF8()
        guard let scanned = text.utf8.withContiguousStorageIfAvailable(Scanned.init) ?? nil else { return nil }
        self.text = text
        self.receivedAt = receivedAt
        type = scanned.type
        replyTo = scanned.replyTo
        ok = scanned.ok ?? false
        messageSender = scanned.messageSender
        messageText = scanned.messageText
    }

    /// The frame's JSON object, parsed now.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    public var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    public subscript(key: String) -> Any? { json[key] }

    /// The `senderId` of the frame's `message` (a `message.new`'s or a reply's).
    public var messageSenderID: String? { messageSender.map(decode) }
    /// The `text` of the frame's `message`.
    public var messageBody: String? { messageText.map(decode) }

    private func decode(_ range: JSONScanner.StringRange) -> String {
        text.utf8.withContiguousStorageIfAvailable { JSONScanner($0).string(range) } ?? ""
    }

    /// What one pass over a frame's bytes finds: top-level `type`, `replyTo` and `ok`, and the
    /// `message` object's `senderId` and `text` (the last of each where a key repeats; nil where
    /// missing or of another kind).
    struct Scanned: Equatable {
        var type: String?
        var replyTo: String?
        var ok: Bool?
        var messageSender: JSONScanner.StringRange?
        var messageText: JSONScanner.StringRange?

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            var scanner = JSONScanner(bytes)
            var found = Scanned()
            do {
                try scanner.object { scanner, key in
                    if scanner.string(key, is: "type") {
                        found.type = try scanner.stringIfAny().map { scanner.string($0) }
                        return found.type != nil
                    }
                    if scanner.string(key, is: "replyTo") {
                        found.replyTo = try scanner.stringIfAny().map { scanner.string($0) }
                        return found.replyTo != nil
                    }
                    if scanner.string(key, is: "ok") {
                        found.ok = try scanner.boolIfAny()
                        return found.ok != nil
                    }
                    if scanner.string(key, is: "message") {
                        found.messageSender = nil
                        found.messageText = nil
                        guard scanner.atObject() else { return false }
                        try scanner.object(depth: 1) { scanner, key in
                            if scanner.string(key, is: "senderId") {
                                found.messageSender = try scanner.stringIfAny()
                                return found.messageSender != nil
                            }
                            if scanner.string(key, is: "text") {
                                found.messageText = try scanner.stringIfAny()
                                return found.messageText != nil
                            }
                            return false
                        }
                        return true
                    }
                    return false
                }
                try scanner.end()
            } catch {
                return nil
            }
            self = found
        }

        private init() {}
    }
}

import ParleyCore

// Values that travel both in REST bodies and in realtime frames: the protocol's nouns.

public enum DialogType: String, Sendable, Codable { case `private`, group }

public enum MessageKind: String, Sendable, Codable, CaseIterable {
    case text, image, video, audio, call, location
}

/// A place shared in a `location` message: WGS 84 degrees and an optional name.
public struct Location: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var name: String?

    public init(latitude: Double, longitude: Double, name: String? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
    }
}

/// Where a forwarded message came from: the original message and who wrote it.
public struct ForwardedFrom: Sendable, Equatable, Codable {
    public var messageId: String
    public var senderId: String

    public init(messageId: String, senderId: String) {
        self.messageId = messageId
        self.senderId = senderId
    }
}

public enum CallMedia: String, Sendable, Codable { case audio, video }

/// Why a call ended (API.md, "Calls").
public enum CallEndReason: String, Sendable, Codable {
    case declined, canceled, busy, hangup
    case noAnswer = "no_answer"
    case answeredElsewhere = "answered_elsewhere"
    case connectionLost = "connection_lost"
    case serverShutdown = "server_shutdown"
}

/// The record a finished call leaves in the pair's dialog.
public struct CallRecord: Sendable, Equatable, Codable {
    public var callId: String
    public var media: String
    public var outcome: String
    public var durationSeconds: Int

    public init(callId: String, media: String, outcome: String, durationSeconds: Int) {
        self.callId = callId
        self.media = media
        self.outcome = outcome
        self.durationSeconds = durationSeconds
    }
}

/// `message` as clients see it (REST and `message.new`).
public struct MessageView: Codable, Sendable, Equatable {
    public let id: String
    public let dialogId: String
    public let senderId: String
    public let clientMessageId: String
    public let kind: MessageKind
    public let text: String?
    public let attachment: AttachmentView?
    public let call: CallRecord?
    public let location: Location?
    public let forwardedFrom: ForwardedFrom?
    public let createdAt: String
    public let readBy: [String]

    public init(id: String, dialogId: String, senderId: String, clientMessageId: String, kind: MessageKind, text: String?,
                attachment: AttachmentView?, call: CallRecord?, location: Location? = nil, forwardedFrom: ForwardedFrom? = nil,
                createdAt: String, readBy: [String]) {
        self.location = location
        self.forwardedFrom = forwardedFrom
        self.id = id
        self.dialogId = dialogId
        self.senderId = senderId
        self.clientMessageId = clientMessageId
        self.kind = kind
        self.text = text
        self.attachment = attachment
        self.call = call
        self.createdAt = createdAt
        self.readBy = readBy
    }
}

/// An attachment's description, with where to fetch its bytes.
public struct AttachmentView: Codable, Sendable, Equatable {
    public let id: String
    public let kind: String
    public let contentType: String
    public let size: Int
    public let durationMs: Int?
    public let width: Int?
    public let height: Int?
    public let url: String

    public init(id: String, kind: String, contentType: String, size: Int, durationMs: Int?, width: Int?, height: Int?, url: String) {
        self.id = id
        self.kind = kind
        self.contentType = contentType
        self.size = size
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.url = url
    }
}

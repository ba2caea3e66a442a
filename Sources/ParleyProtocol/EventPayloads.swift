import ParleyCore

// The payload of each realtime event: its fields sit beside `type` and `seq` in the frame.

/// `friend.request`: someone asked to be friends.
public struct FriendRequestEvent: Codable, Sendable, Equatable {
    public let id: String
    public let from: String
    public let to: String
    /// RFC 3339 (`WireTime`).
    public let createdAt: String

    public init(id: String, from: String, to: String, createdAt: String) {
        self.id = id
        self.from = from
        self.to = to
        self.createdAt = createdAt
    }
}

/// `friend.accepted` / `friend.removed`: the other person.
public struct UserRefEvent: Codable, Sendable, Equatable {
    public let userId: String
    public init(userId: String) { self.userId = userId }
}

/// `message.new`.
public struct MessageEvent: Codable, Sendable, Equatable {
    public let message: MessageView
    public init(message: MessageView) { self.message = message }
}

/// `message.read`: a member read up to a message.
public struct ReadEvent: Codable, Sendable, Equatable {
    public let dialogId: String
    public let userId: String
    public let upToMessageId: String
    public let readAt: String

    public init(dialogId: String, userId: String, upToMessageId: String, readAt: String) {
        self.dialogId = dialogId
        self.userId = userId
        self.upToMessageId = upToMessageId
        self.readAt = readAt
    }
}

/// `typing` (not stored).
public struct TypingEvent: Codable, Sendable, Equatable {
    public let dialogId: String
    public let userId: String
    public init(dialogId: String, userId: String) {
        self.dialogId = dialogId
        self.userId = userId
    }
}

/// `dialog.updated`: created, renamed, members changed.
public struct DialogEvent: Codable, Sendable, Equatable {
    public struct Dialog: Codable, Sendable, Equatable {
        public let id: String
        public let type: DialogType
        public let name: String?
        public let avatarUrl: String?
        public let memberIds: [String]
        /// A group's owner (who may remove members and delete it for everyone).
        public let ownerId: String?
        public let updatedAt: String

        public init(id: String, type: DialogType, name: String?, avatarUrl: String?, memberIds: [String], ownerId: String? = nil,
                    updatedAt: String) {
            self.ownerId = ownerId
            self.id = id
            self.type = type
            self.name = name
            self.avatarUrl = avatarUrl
            self.memberIds = memberIds
            self.updatedAt = updatedAt
        }
    }
    public let dialog: Dialog
    public init(dialog: Dialog) { self.dialog = dialog }
}

/// `dialog.deleted`: a group's owner deleted it for everyone, or a declined message request took
/// its conversation away.
public struct DialogRefEvent: Codable, Sendable, Equatable {
    public let dialogId: String
    public init(dialogId: String) { self.dialogId = dialogId }
}

/// `message.request`: a stranger's first message waits for the receiver (`pending`, with that
/// message), or the receiver answered (`accepted`: a normal chat now; `declined`: gone for both).
public struct MessageRequestEvent: Codable, Sendable, Equatable {
    public struct Request: Codable, Sendable, Equatable {
        /// The request's id: the id of the dialog it opens.
        public let id: String
        public let dialogId: String
        public let from: String
        public let to: String
        /// pending, accepted or declined.
        public let status: String
        public let createdAt: String
        public let message: MessageView?

        public init(id: String, dialogId: String, from: String, to: String, status: String, createdAt: String, message: MessageView?) {
            self.id = id
            self.dialogId = dialogId
            self.from = from
            self.to = to
            self.status = status
            self.createdAt = createdAt
            self.message = message
        }
    }
    public let request: Request
    public init(request: Request) { self.request = request }
}

/// `user.updated`: someone the receiver knows (a friend, or a member of a chat they share) changed
/// their name, status or picture, came online or went offline. `online` and `lastSeen` are there
/// only for receivers the user's privacy lets see them.
public struct UserUpdatedEvent: Codable, Sendable, Equatable {
    public struct User: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
        public let status: String
        public let avatarUrl: String?
        public let online: Bool?
        public let lastSeen: String?

        public init(id: String, name: String, status: String, avatarUrl: String?, online: Bool?, lastSeen: String?) {
            self.id = id
            self.name = name
            self.status = status
            self.avatarUrl = avatarUrl
            self.online = online
            self.lastSeen = lastSeen
        }
    }
    public let user: User
    public init(user: User) { self.user = user }
}

/// `story.new`: a friend posted a story.
public struct StoryEvent: Codable, Sendable, Equatable {
    public let storyId: String
    public let ownerId: String
    public init(storyId: String, ownerId: String) {
        self.storyId = storyId
        self.ownerId = ownerId
    }
}

/// `call.incoming`: a friend is calling.
public struct CallIncomingEvent: Codable, Sendable, Equatable {
    public let callId: String
    public let from: String
    public let media: CallMedia
    public init(callId: String, from: String, media: CallMedia) {
        self.callId = callId
        self.from = from
        self.media = media
    }
}

/// `call.accepted`.
public struct CallRefEvent: Codable, Sendable, Equatable {
    public let callId: String
    public init(callId: String) { self.callId = callId }
}

/// `call.ended`.
public struct CallEndedEvent: Codable, Sendable, Equatable {
    public let callId: String
    public let reason: CallEndReason
    public let durationSeconds: Int
    public init(callId: String, reason: CallEndReason, durationSeconds: Int) {
        self.callId = callId
        self.reason = reason
        self.durationSeconds = durationSeconds
    }
}

/// `call.media`: the other side's microphone and camera.
public struct CallMediaEvent: Codable, Sendable, Equatable {
    public let callId: String
    public let from: String
    public let audio: Bool
    public let video: Bool
    public init(callId: String, from: String, audio: Bool, video: Bool) {
        self.callId = callId
        self.from = from
        self.audio = audio
        self.video = video
    }
}

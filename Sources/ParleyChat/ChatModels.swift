import Foundation
import ParleyCore
import ParleyFriends
import ParleyProtocol

/// A conversation as stored.
public struct DialogRecord: Sendable, Equatable {
    public var id: DialogID
    public var type: DialogType
    public var name: String?
    public var avatarAttachmentID: AttachmentID?
    public var createdBy: UserID
    /// A group's owner: its creator, then whoever has been in it longest when the owner leaves.
    public var ownerID: UserID? = nil
    public var createdAt: Date
    public var updatedAt: Date
    public var lastMessageSeq: Int64
}

/// One member's standing in a dialog.
/// A dialog as a message into it needs it (``ChatStore/sendContext(dialog:sender:)``).
public struct SendContext: Sendable, Equatable {
    public var dialog: DialogRecord
    public var members: [Membership]
    /// A private dialog's message request, if one was ever made.
    public var request: MessageRequestRecord?
    /// The sender's: who blocks them, and their reach to the other of a private dialog.
    public var standing: SenderStanding
}

public struct Membership: Sendable, Equatable {
    public var dialogID: DialogID
    public var userID: UserID
    public var joinedAt: Date
    /// Messages up to this seq are read.
    public var readSeq: Int64
    /// Messages up to this seq were deleted for this member ("delete conversation").
    public var clearedSeq: Int64
    public var hidden: Bool
}

public struct MessageRecord: Sendable, Equatable {
    public var id: MessageID
    public var dialogID: DialogID
    public var seq: Int64
    public var senderID: UserID
    public var clientMessageID: String
    public var kind: MessageKind
    public var text: String?
    public var attachmentID: AttachmentID?
    public var call: CallRecord?
    public var location: Location? = nil
    public var forwardedFrom: ForwardedFrom? = nil
    public var createdAt: Date
}

/// An uploaded file: its kind is what its bytes say.
public struct AttachmentRecord: Sendable, Equatable {
    public var id: AttachmentID
    public var uploaderID: UserID
    public var hash: String
    public var kind: String
    public var contentType: String
    public var size: Int
    public var durationMs: Int?
    public var width: Int?
    public var height: Int?
    public var createdAt: Date
}

/// The stable codes Chat answers with.
public enum ChatErrors {
    public static let dialogNotFound = ParleyError(.notFound, code: "dialog_not_found", "No such conversation")
    public static let messageNotFound = ParleyError(.notFound, code: "message_not_found", "No such message in this conversation")
    public static let attachmentNotFound = ParleyError(.notFound, code: "attachment_not_found", "No such attachment")
    public static let emptyMessage = ParleyError.rule("empty_message", "A text message needs text")
    public static let textTooLong = ParleyError.rule("text_too_long", "Messages are at most \(ChatRules.maxTextLength) characters")
    public static let attachmentRequired = ParleyError.rule("attachment_required", "This kind of message needs an attachment")
    public static let attachmentKindMismatch = ParleyError.rule("attachment_kind_mismatch", "The attachment is not of this message's kind")
    public static let invalidGroupName = ParleyError.rule("invalid_name", "A group name is 1 to \(ChatRules.maxNameLength) characters")
    public static let notAFriend = ParleyError.rule("not_a_friend", "Only your friends can be added to a group")
    public static let tooManyMembers = ParleyError.rule("too_many_members", "A group has at most \(ChatRules.maxGroupMembers) members")
    public static let notAGroup = ParleyError.rule("not_a_group", "Only groups have names and members to change")
    public static let unsupportedKind = ParleyError(.unsupportedMedia, code: "unsupported_media_type",
                                                    "Attachments are JPEG, PNG, HEIC, GIF, MP4/MOV, WebM, M4A/AAC, MP3, Ogg/Opus, WAV or CAF")
    public static func tooLarge(_ kind: String, _ limit: Int) -> ParleyError {
        ParleyError(.tooLarge, code: "payload_too_large", "\(kind) attachments are at most \(limit) bytes")
    }
    public static func quotaExceeded(_ quota: Int) -> ParleyError {
        ParleyError(.tooLarge, code: "quota_exceeded", "Your attachments may take at most \(quota) bytes together")
    }
    public static let clientMessageIDRequired = ParleyError(
        .badRequest, code: "invalid_field", "clientMessageId: 1 to \(ChatRules.maxClientMessageIDLength) characters")
    public static let notGroupOwner = ParleyError(.forbidden, code: "not_group_owner", "Only the group's owner can do this")
    public static let memberNotFound = ParleyError(.notFound, code: "member_not_found", "No such member in this group")
    public static let invalidLocation = ParleyError.rule(
        "invalid_location", "A location has a latitude from -90 to 90, a longitude from -180 to 180 and a name of at most \(ChatRules.maxPlaceNameLength) characters")
    public static let notForwardable = ParleyError.rule("not_forwardable", "Call records cannot be forwarded")
    public static let callRecordsAreServerMade = ParleyError.rule("invalid_kind", "Call records are written by the server")
}

public enum ChatRules {
    public static let maxTextLength = 4000
    public static let maxNameLength = 64
    public static let maxGroupMembers = 256
    public static let maxClientMessageIDLength = 128
    public static let maxPlaceNameLength = 200

    /// A location as it may be stored: finite coordinates on the globe, the name trimmed.
    public static func location(_ location: Location) throws -> Location {
        guard location.latitude.isFinite, location.longitude.isFinite, (-90...90).contains(location.latitude),
              (-180...180).contains(location.longitude) else { throw ChatErrors.invalidLocation }
        let name = location.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, name.count > maxPlaceNameLength { throw ChatErrors.invalidLocation }
        return Location(latitude: location.latitude, longitude: location.longitude, name: name?.isEmpty == true ? nil : name)
    }
}

/// A message stored by a send decided in its own transaction, with the members it read.
public struct SettledMessage: Sendable {
    public let message: MessageRecord
    public let isNew: Bool
    public let members: [Membership]
}

/// A message as `send` leaves it: its view, and for a new message the `message.new` event as it
/// was encoded for the members (whose `message` is the view).
public struct SentMessage: Sendable {
    public let view: MessageView
    public let announced: EncodedEvent?
}

extension MessageKind {
    /// A photo, a video or a voice note: the message is an uploaded file.
    var carriesAttachment: Bool {
        switch self {
        case .image, .video, .audio: true
        case .text, .location, .call: false
        }
    }
}

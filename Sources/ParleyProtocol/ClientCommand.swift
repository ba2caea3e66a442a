import Foundation
import ParleyCore

/// Every command a device sends on the realtime socket, decoded once from its frame.
public enum ClientCommand: Sendable, Equatable {
    case ping
    /// Events after `since`, at most `limit` (default 500, 1…1000).
    case sync(since: Int64, limit: Int?)
    case messageSend(OutgoingMessageCommand)
    case messageRead(dialog: DialogID, upTo: MessageID)
    case typing(dialog: DialogID)
    case callInvite(to: UserID, media: CallMedia, sdp: String)
    case callAccept(CallID, sdp: String)
    case callDecline(CallID)
    case callHangup(CallID)
    case callMedia(CallID, audio: Bool, video: Bool)
    /// ICE restart on a live call (a network switch): a new offer with new ICE credentials.
    case callRestart(CallID, sdp: String)

    /// The frame's `type`.
    public var type: String {
        switch self {
        case .ping: "ping"
        case .sync: "sync"
        case .messageSend: "message.send"
        case .messageRead: "message.read"
        case .typing: "typing"
        case .callInvite: "call.invite"
        case .callAccept: "call.accept"
        case .callDecline: "call.decline"
        case .callHangup: "call.hangup"
        case .callMedia: "call.media"
        case .callRestart: "call.restart"
        }
    }

    /// Every command type (for the contract check against docs/openapi.yaml).
    public static let types = [
        "ping", "sync", "message.send", "message.read", "typing",
        "call.invite", "call.accept", "call.decline", "call.hangup", "call.media", "call.restart",
    ]
}

/// `message.send`'s fields.
public struct OutgoingMessageCommand: Sendable, Equatable, Decodable {
    public let dialogId: DialogID
    public let clientMessageId: String
    public let kind: MessageKind
    public let text: String?
    public let attachmentId: AttachmentID?
    /// A message the sender can read, sent on here (its attachment is not uploaded again).
    public let forwardMessageId: MessageID?
    /// For `location` messages.
    public let location: Location?
}

/// A decoded client frame: its id (echoed in the reply) and its command.
public struct CommandFrame: Sendable, Equatable {
    public let id: FrameID?
    public let command: ClientCommand

    /// Decodes a frame. A frame that is not a JSON object, has no `type`, names an unknown
    /// command or lacks a field fails with the stable code a client can act on, and with the
    /// frame's id when that much was readable (so the error still answers it). A plain
    /// `message.send` is read without JSONDecoder (`decodeMessageSend`), to the same frame.
    public static func decode(_ bytes: [UInt8]) -> Result<CommandFrame, Failure> {
        if let frame = decodeMessageSend(bytes) { return .success(frame) }
        return decodeWithJSONDecoder(bytes)
    }

    /// Every frame through JSONDecoder: what a frame the `message.send` fast path does not take
    /// is decoded by, and what that path is tested against.
    /// A frame with the NUL character anywhere (`NulEscape`) is refused, with its id when
    /// readable: the fast path leaves it to this one.
    static func decodeWithJSONDecoder(_ bytes: [UInt8]) -> Result<CommandFrame, Failure> {
        let decoded = decodeEnvelope(bytes)
        guard NulEscape.isIn(bytes) else { return decoded }
        let id = switch decoded {
        case .success(let frame): frame.id
        case .failure(let failure): failure.id
        }
        return .failure(Failure(id: id, error: ParleyError.badRequest(NulEscape.refused, code: "invalid_json")))
    }

    private static func decodeEnvelope(_ bytes: [UInt8]) -> Result<CommandFrame, Failure> {
        // One parse: the envelope reads its id and type, then the command's fields from the
        // same object; a body that does not fit is kept as the error, with the id beside it.
        let envelope: Envelope
        do {
            envelope = try ProtocolCoding.decoder.decode(Envelope.self, from: Data(bytes))
        } catch {
            return .failure(Failure(id: nil, error: ParleyError.badRequest("A frame is a JSON object with a type", code: "invalid_json")))
        }
        switch envelope.command {
        case .success(let command):
            return .success(CommandFrame(id: envelope.id, command: command))
        case .failure(let error as ParleyError):
            return .failure(Failure(id: envelope.id, error: error))
        case .failure(let error as DecodingError):
            return .failure(Failure(id: envelope.id, error: ParleyError.decoding(error)))
        case .failure:
            return .failure(Failure(id: envelope.id, error: ParleyError.badRequest("The frame could not be read", code: "invalid_json")))
        }
    }

    public struct Failure: Error, Sendable, Equatable {
        public let id: FrameID?
        public let error: ParleyError
    }

    static func command(_ type: String, _ decoder: any Decoder) throws -> ClientCommand {
        func body<T: Decodable>(_: T.Type) throws -> T { try T(from: decoder) }
        switch type {
        case "ping":
            return .ping
        case "sync":
            let sync = try body(Sync.self)
            return .sync(since: sync.since, limit: sync.limit)
        case "message.send":
            return .messageSend(try body(OutgoingMessageCommand.self))
        case "message.read":
            let read = try body(Read.self)
            return .messageRead(dialog: read.dialogId, upTo: read.upToMessageId)
        case "typing":
            return .typing(dialog: try body(DialogRef.self).dialogId)
        case "call.invite":
            let invite = try body(Invite.self)
            return .callInvite(to: invite.to, media: invite.media, sdp: invite.sdp)
        case "call.accept":
            let accept = try body(CallOffer.self)
            return .callAccept(accept.callId, sdp: accept.sdp)
        case "call.decline":
            return .callDecline(try body(CallRef.self).callId)
        case "call.hangup":
            return .callHangup(try body(CallRef.self).callId)
        case "call.media":
            let media = try body(Media.self)
            return .callMedia(media.callId, audio: media.audio, video: media.video)
        case "call.restart":
            let restart = try body(CallOffer.self)
            return .callRestart(restart.callId, sdp: restart.sdp)
        default:
            throw ParleyError.badRequest("Unknown command \(type)", code: "unknown_command")
        }
    }

    /// The envelope: an id of any readable kind (anything else is no id), the type, and the
    /// command read from the same object (or why it could not be).
    struct Envelope: Decodable {
        let id: FrameID?
        let command: Result<ClientCommand, any Error>

        enum Key: String, CodingKey { case id, type }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            id = try? container.decodeIfPresent(FrameID.self, forKey: .id)
            guard let type = try? container.decodeIfPresent(String.self, forKey: .type), !type.isEmpty else {
                command = .failure(ParleyError(.badRequest, code: "missing_field", "type is required"))
                return
            }
            command = Result { try CommandFrame.command(type, decoder) }
        }
    }

    struct Sync: Decodable { let since: Int64; let limit: Int? }
    struct Read: Decodable { let dialogId: DialogID; let upToMessageId: MessageID }
    struct DialogRef: Decodable { let dialogId: DialogID }
    struct Invite: Decodable { let to: UserID; let media: CallMedia; let sdp: String }
    struct CallOffer: Decodable { let callId: CallID; let sdp: String }
    struct CallRef: Decodable { let callId: CallID }
    struct Media: Decodable { let callId: CallID; let audio: Bool; let video: Bool }
}

import ParleyChat
import ParleyCore
import ParleyRealtime

/// `message.send`, `message.read` and `typing` over the realtime socket.
public enum ChatCommands {
    struct Send: Decodable { let dialogId: String; let clientMessageId: String; let kind: MessageKind; let text: String?; let attachmentId: String? }
    struct Read: Decodable { let dialogId: String; let upToMessageId: String }
    struct Typing: Decodable { let dialogId: String }
    struct Sent: Encodable, Sendable { let message: MessageView }

    public static func register(_ chat: ChatService, into commands: inout RealtimeCommands) {
        commands.register("message.send") { caller, frame in
            let body = try RealtimeCommands.decode(Send.self, from: frame)
            let message = try await chat.send(caller.userID, to: DialogID(rawValue: body.dialogId), OutgoingMessage(
                clientMessageID: body.clientMessageId, kind: body.kind, text: body.text,
                attachmentID: body.attachmentId.map(AttachmentID.init(rawValue:))))
            return Sent(message: message)
        }
        commands.register("message.read") { caller, frame in
            let body = try RealtimeCommands.decode(Read.self, from: frame)
            try await chat.markRead(caller.userID, DialogID(rawValue: body.dialogId), upTo: MessageID(rawValue: body.upToMessageId))
            return nil
        }
        commands.register("typing") { caller, frame in
            let body = try RealtimeCommands.decode(Typing.self, from: frame)
            try await chat.typing(caller.userID, DialogID(rawValue: body.dialogId))
            return nil
        }
    }
}

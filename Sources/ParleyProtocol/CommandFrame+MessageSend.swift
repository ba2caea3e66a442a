import ParleyCore

extension CommandFrame {
    /// A `message.send` frame — most of what a busy server reads — decoded without JSONDecoder,
    /// which cost ~4 % of its CPU there. Takes only a flat object whose members are all known
    /// ones, each once: `id` (a string, a small integer or `null`), `type` = `message.send`, the
    /// string fields, and `null` for the optional ones (`location` among them). Anything else —
    /// an unknown or repeated key, another `type`, a number it does not read exactly, invalid
    /// text — is nil, and the frame goes to ``decodeWithJSONDecoder(_:)``, which answers it as
    /// it always has; where this answers, it gives the same frame (MessageSendFastPathTests).
    static func decodeMessageSend(_ bytes: [UInt8]) -> CommandFrame? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            return MessageSendMembers.read(&scanner)
        }
    }
}

/// The members the fast path knows, and what it has read of them.
private struct MessageSendMembers {
    /// One bit per member read, so a repeated key is noticed.
    var seen: UInt16 = 0
    var id: FrameID?
    var isSend = false
    var dialogId: String?
    var clientMessageId: String?
    var kind: MessageKind?
    var text: String?
    var attachmentId: String?
    var forwardMessageId: String?

    enum Member: String {
        case id, type, dialogId, clientMessageId, kind, text, attachmentId, forwardMessageId, location

        var bit: UInt16 {
            switch self {
            case .id: 1 << 0
            case .type: 1 << 1
            case .dialogId: 1 << 2
            case .clientMessageId: 1 << 3
            case .kind: 1 << 4
            case .text: 1 << 5
            case .attachmentId: 1 << 6
            case .forwardMessageId: 1 << 7
            case .location: 1 << 8
            }
        }
    }

    static func read(_ scanner: inout JSONScanner) -> CommandFrame? {
        var members = MessageSendMembers()
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        if !scanner.take(UInt8(ascii: "}")) {
            repeat {
                // Keys are ASCII, so matching them is matching bytes (a Swift `==` on other text
                // would also match canonically equivalent spellings).
                guard let key = scanner.string(), key.utf8.allSatisfy({ $0 < 0x80 }), let member = Member(rawValue: key),
                      members.seen & member.bit == 0, scanner.take(UInt8(ascii: ":")),
                      members.readValue(of: member, &scanner)
                else { return nil }
                members.seen |= member.bit
            } while scanner.take(UInt8(ascii: ","))
            guard scanner.take(UInt8(ascii: "}")) else { return nil }
        }
        guard scanner.isAtEnd(), members.isSend, let dialogId = members.dialogId, let clientMessageId = members.clientMessageId,
              let kind = members.kind
        else { return nil }
        let command = OutgoingMessageCommand(
            dialogId: DialogID(rawValue: dialogId), clientMessageId: clientMessageId, kind: kind, text: members.text,
            attachmentId: members.attachmentId.map(AttachmentID.init(rawValue:)),
            forwardMessageId: members.forwardMessageId.map(MessageID.init(rawValue:)), location: nil)
        return CommandFrame(id: members.id, command: .messageSend(command))
    }

    /// Reads `member`'s value; false for one the fast path does not take.
    private mutating func readValue(of member: Member, _ scanner: inout JSONScanner) -> Bool {
        switch member {
        case .id:
            if scanner.takeNull() { return true }
            if scanner.peek() == UInt8(ascii: "\"") {
                guard let text = scanner.string() else { return false }
                id = .string(text)
            } else {
                guard let whole = scanner.integer() else { return false }
                id = .integer(whole)
            }
        case .type:
            guard let type = scanner.string(), type.utf8.elementsEqual("message.send".utf8) else { return false }
            isSend = true
        case .dialogId:
            guard let value = scanner.string() else { return false }
            dialogId = value
        case .clientMessageId:
            guard let value = scanner.string() else { return false }
            clientMessageId = value
        case .kind:
            guard let value = scanner.string(), let known = MessageKind(rawValue: value), known.rawValue.utf8.elementsEqual(value.utf8)
            else { return false }
            kind = known
        case .text:
            return Self.optionalString(&scanner, into: &text)
        case .attachmentId:
            return Self.optionalString(&scanner, into: &attachmentId)
        case .forwardMessageId:
            return Self.optionalString(&scanner, into: &forwardMessageId)
        case .location:
            return scanner.takeNull()
        }
        return true
    }

    private static func optionalString(_ scanner: inout JSONScanner, into value: inout String?) -> Bool {
        if scanner.takeNull() { return true }
        guard let text = scanner.string() else { return false }
        value = text
        return true
    }
}

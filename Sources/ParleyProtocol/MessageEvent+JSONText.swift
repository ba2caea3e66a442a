extension MessageEvent {
    /// The payload's JSON written by hand: the same text `ProtocolCoding.encoder` gives
    /// (MessageEventJSONTextTests holds them together), for `message.new`, which is encoded once
    /// per message sent — through JSONEncoder that was ~4 % of a busy server's CPU.
    ///
    /// Nil for a message with a `location`: how JSONEncoder prints a `Double` is left to it.
    func jsonText() -> String? {
        guard message.location == nil else { return nil }
        var writer = JSONTextWriter(capacity: 256 + (message.text?.utf8.count ?? 0) + message.readBy.count * 40)
        writer.openObject()
        writer.key("message")
        message.write(to: &writer)
        writer.closeObject()
        return writer.text
    }
}

// Each type's members in sorted key order, absent optionals left out.

extension MessageView {
    fileprivate func write(to writer: inout JSONTextWriter) {
        writer.openObject()
        if let attachment {
            writer.key("attachment")
            attachment.write(to: &writer)
        }
        if let call {
            writer.key("call")
            call.write(to: &writer)
        }
        writer.member("clientMessageId", clientMessageId)
        writer.member("createdAt", createdAt)
        writer.member("dialogId", dialogId)
        if let forwardedFrom {
            writer.key("forwardedFrom")
            writer.openObject()
            writer.member("messageId", forwardedFrom.messageId)
            writer.member("senderId", forwardedFrom.senderId)
            writer.closeObject()
        }
        writer.member("id", id)
        writer.member("kind", kind.rawValue)
        writer.key("readBy")
        writer.strings(readBy)
        writer.member("senderId", senderId)
        writer.member("text", ifPresent: text)
        writer.closeObject()
    }
}

extension AttachmentView {
    fileprivate func write(to writer: inout JSONTextWriter) {
        writer.openObject()
        writer.member("contentType", contentType)
        writer.member("durationMs", ifPresent: durationMs)
        writer.member("height", ifPresent: height)
        writer.member("id", id)
        writer.member("kind", kind)
        writer.member("size", size)
        writer.member("url", url)
        writer.member("width", ifPresent: width)
        writer.closeObject()
    }
}

extension CallRecord {
    fileprivate func write(to writer: inout JSONTextWriter) {
        writer.openObject()
        writer.member("callId", callId)
        writer.member("durationSeconds", durationSeconds)
        writer.member("media", media)
        writer.member("outcome", outcome)
        writer.closeObject()
    }
}

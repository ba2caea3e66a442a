import Foundation
import ParleyCore
import ParleyProtocol
import Testing

/// Client frames are decoded once into a command; what cannot be read is answered with a stable
/// code and, when the id was readable, to that id.
@Suite struct CommandFrameTests {
    static func decode(_ text: String) -> Result<CommandFrame, CommandFrame.Failure> {
        CommandFrame.decode(Array(text.utf8))
    }

    @Test(arguments: [
        (#"{"type":"ping"}"#, ClientCommand.ping),
        (#"{"type":"sync","since":5}"#, .sync(since: 5, limit: nil)),
        (#"{"type":"sync","since":0,"limit":20}"#, .sync(since: 0, limit: 20)),
        (#"{"type":"message.read","dialogId":"d","upToMessageId":"m"}"#, .messageRead(dialog: DialogID(rawValue: "d"), upTo: MessageID(rawValue: "m"))),
        (#"{"type":"typing","dialogId":"d"}"#, .typing(dialog: DialogID(rawValue: "d"))),
        (#"{"type":"call.invite","to":"u","media":"video","sdp":"v=0"}"#, .callInvite(to: UserID(rawValue: "u"), media: .video, sdp: "v=0")),
        (#"{"type":"call.accept","callId":"k","sdp":"v=0"}"#, .callAccept(CallID(rawValue: "k"), sdp: "v=0")),
        (#"{"type":"call.decline","callId":"k"}"#, .callDecline(CallID(rawValue: "k"))),
        (#"{"type":"call.hangup","callId":"k"}"#, .callHangup(CallID(rawValue: "k"))),
        (#"{"type":"call.media","callId":"k","audio":false,"video":true}"#, .callMedia(CallID(rawValue: "k"), audio: false, video: true)),
        (#"{"type":"call.restart","callId":"k","sdp":"v=0"}"#, .callRestart(CallID(rawValue: "k"), sdp: "v=0")),
    ])
    func eachCommandDecodesToItsCase(_ text: String, _ command: ClientCommand) throws {
        #expect(try Self.decode(text).get().command == command)
    }

    @Test func aMessageSendCarriesItsFields() throws {
        let frame = try Self.decode(#"{"id":"a","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"hi"}"#).get()
        guard case .messageSend(let message) = frame.command else { Issue.record("not a send"); return }
        #expect(message.dialogId == DialogID(rawValue: "d") && message.kind == .text && message.text == "hi" && message.attachmentId == nil)
    }

    @Test func theIdIsEchoedAsGiven() throws {
        #expect(try Self.decode(#"{"id":"x-1","type":"ping"}"#).get().id == .string("x-1"))
        #expect(try Self.decode(#"{"id":17,"type":"ping"}"#).get().id == .integer(17))
        #expect(try Self.decode(#"{"id":{"no":1},"type":"ping"}"#).get().id == nil)
        #expect(ServerFrame.reply(to: .integer(17), .done).text == #"{"ok":true,"replyTo":17}"#)
        #expect(ServerFrame.reply(to: nil, .done).text == #"{"ok":true,"replyTo":null}"#)
    }

    @Test(arguments: [
        ("[1,2]", "invalid_json", false),
        ("not json", "invalid_json", false),
        (#"{"id":3}"#, "missing_field", true),
        (#"{"id":3,"type":"call.explode"}"#, "unknown_command", true),
        (#"{"id":3,"type":"call.accept","callId":"k"}"#, "missing_field", true),
        (#"{"id":3,"type":"call.invite","to":"u","media":"hologram","sdp":"v=0"}"#, "invalid_field", true),
        (#"{"id":3,"type":"sync","since":"yesterday"}"#, "invalid_field", true),
        // The NUL character, in a send the fast path reads and in a frame JSONDecoder reads.
        (#"{"id":3,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"a\u0000b"}"#, "invalid_json", true),
        (#"{"id":3,"type":"typing","dialogId":"d\u0000"}"#, "invalid_json", true),
    ])
    func unreadableFramesGetAStableCode(_ text: String, _ code: String, _ keepsID: Bool) {
        guard case .failure(let failure) = Self.decode(text) else { Issue.record("\(text) was accepted"); return }
        #expect(failure.error.code == code)
        #expect(failure.id == (keepsID ? .integer(3) : nil))
        let reply = ServerFrame.failure(to: failure.id, failure.error).text
        #expect(reply.contains(#""ok":false"#) && reply.contains(#""code":"\#(code)""#))
    }

    /// A refusal for now carries the seconds to wait, as REST's `Retry-After`; other errors do not.
    @Test func aRateLimitedReplyCarriesItsWait() throws {
        let limited = ServerFrame.failure(to: .integer(7), .rateLimited(retryAfter: 3)).text
        let error = try #require((try JSONSerialization.jsonObject(with: Data(limited.utf8)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "rate_limited" && error["retryAfter"] as? Int == 3, "\(limited)")
        let other = ServerFrame.failure(to: .integer(7), .badRequest("no", code: "invalid_field")).text
        #expect(!other.contains("retryAfter"), "\(other)")
    }

    /// `\u0000` is the NUL; an escaped backslash before `u0000` is not, nor is a `\u` of another
    /// character.
    @Test func onlyTheNulEscapeIsRefused() {
        #expect(NulEscape.isIn(Array(#"{"t":"\u0000"}"#.utf8)))
        #expect(NulEscape.isIn(Array(#"{"t":"\\\u0000"}"#.utf8)))
        #expect(!NulEscape.isIn(Array(#"{"t":"\\u0000"}"#.utf8)))
        #expect(!NulEscape.isIn(Array(#"{"t":"\u0001 \u00e9 u0000"}"#.utf8)))
        #expect(!NulEscape.isIn(Array(#"{"t":"\u000"#.utf8)))
        #expect(throws: Never.self) { try Self.decode(#"{"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\\u0000"}"#).get() }
    }

    @Test func theCatalogueOfCommandsIsComplete() {
        #expect(ClientCommand.types.count == Set(ClientCommand.types).count)
        for type in ClientCommand.types {
            guard case .failure(let failure) = Self.decode(#"{"type":"\#(type)","since":"x"}"#) else { continue }
            #expect(failure.error.code != "unknown_command", "\(type) is in the catalogue but not decoded")
        }
    }
}

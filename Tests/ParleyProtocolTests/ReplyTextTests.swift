import Foundation
import ParleyProtocol
import Testing

/// `message.send`'s reply put together around the message's encoded event: the same JSON the
/// encoder gives the reply, for the ids clients use, and no splice where it could go wrong.
@Suite struct ReplyTextTests {
    static let messages = [
        RealtimeEventTests.message,
        MessageView(id: "m2", dialogId: "d1", senderId: "u1", clientMessageId: #"c "quoted" \ back"#, kind: .text,
                    text: "héllo \"there\"\n\u{1F600} </script>", attachment: nil, call: nil,
                    location: Location(latitude: 52.5, longitude: 13.4, name: "Café"), forwardedFrom: ForwardedFrom(messageId: "m0", senderId: "u2"),
                    createdAt: "2026-11-25T10:00:00.123Z", readBy: []),
    ]

    @Test(arguments: messages, [FrameID.string("c-17"), .integer(42), .integer(-9_007_199_254_740_993)])
    func aReplyPutTogetherAroundTheEventIsTheEncodedReply(_ message: MessageView, _ id: FrameID) throws {
        let payload = EncodedEvent(.messageNew(MessageEvent(message: message))).payloadJSON
        let spliced = try #require(ServerFrame.replyText(to: id, fieldsJSON: payload))
        let encoded = ServerFrame.reply(to: id, .sent(message)).text
        #expect(try RealtimeEventTests.object(spliced) as NSDictionary == RealtimeEventTests.object(encoded) as NSDictionary,
                "\(spliced)\n\(encoded)")
    }

    @Test func idsAndFieldsItCannotWriteSafelyAreLeftToTheEncoder() {
        #expect(ServerFrame.replyText(to: .string(#"a"b"#), fieldsJSON: "{}") == nil)
        #expect(ServerFrame.replyText(to: .string("a\\b"), fieldsJSON: "{}") == nil)
        #expect(ServerFrame.replyText(to: .string("a\nb"), fieldsJSON: "{}") == nil)
        #expect(ServerFrame.replyText(to: .number(1.5), fieldsJSON: "{}") == nil)
        #expect(ServerFrame.replyText(to: nil, fieldsJSON: "{}") == nil)
        #expect(ServerFrame.replyText(to: .integer(1), fieldsJSON: "[1]") == nil)
        #expect(ServerFrame.replyText(to: .integer(1), fieldsJSON: "{}") == #"{"replyTo":1,"ok":true}"#)
    }
}

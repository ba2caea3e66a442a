import Foundation
@testable import ParleyProtocol
import ParleyTestSupport
import Testing

/// `message.new`'s payload written by hand is the very text `ProtocolCoding.encoder` writes:
/// same bytes, key order, escapes and absent optionals — for every kind and shape of message,
/// and for a seeded corpus of messages full of characters that need care.
@Suite struct MessageEventJSONTextTests {
    static func encoded(_ event: MessageEvent) throws -> String {
        String(decoding: try ProtocolCoding.encoder.encode(event), as: UTF8.self)
    }

    /// The hand-written text, byte for byte JSONEncoder's (bytes, not `String ==`, which would
    /// take canonically equivalent text as equal).
    static func expectSameText(_ message: MessageView, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let event = MessageEvent(message: message)
        let text = try #require(event.jsonText(), "a message without a location takes the fast path", sourceLocation: sourceLocation)
        let expected = try encoded(event)
        #expect(text.utf8.elementsEqual(expected.utf8), "\(text)\n!=\n\(expected)", sourceLocation: sourceLocation)
        let payload = RealtimeEvent.messageNew(event).payloadJSON()
        #expect(payload.utf8.elementsEqual(expected.utf8), "\(payload)\n!=\n\(expected)", sourceLocation: sourceLocation)
    }

    static func message(kind: MessageKind = .text, text: String? = "hi", attachment: AttachmentView? = nil, call: CallRecord? = nil,
                        location: Location? = nil, forwardedFrom: ForwardedFrom? = nil, readBy: [String] = ["u2"],
                        id: String = "m1", dialogId: String = "d1", senderId: String = "u1", clientMessageId: String = "c1",
                        createdAt: String = "2026-11-25T10:00:00Z") -> MessageView {
        MessageView(id: id, dialogId: dialogId, senderId: senderId, clientMessageId: clientMessageId, kind: kind, text: text,
                    attachment: attachment, call: call, location: location, forwardedFrom: forwardedFrom, createdAt: createdAt,
                    readBy: readBy)
    }

    static let attachment = AttachmentView(id: "a1", kind: "image", contentType: "image/jpeg", size: 10, durationMs: nil, width: nil,
                                           height: nil, url: "http://x/v1/attachments/a1")

    @Test func aPlainTextMessageReadsAsExpected() throws {
        let text = try #require(MessageEvent(message: Self.message()).jsonText())
        #expect(text == #"{"message":{"clientMessageId":"c1","createdAt":"2026-11-25T10:00:00Z","dialogId":"d1","id":"m1","kind":"text","readBy":["u2"],"senderId":"u1","text":"hi"}}"#)
        try Self.expectSameText(Self.message())
    }

    @Test(arguments: MessageKind.allCases.filter { $0 != .location })
    func everyKindWithAndWithoutText(_ kind: MessageKind) throws {
        try Self.expectSameText(Self.message(kind: kind))
        try Self.expectSameText(Self.message(kind: kind, text: nil))
        try Self.expectSameText(Self.message(kind: kind, text: ""))
    }

    @Test(arguments: [
        (nil, nil, nil), (0, 0, 0), (1500, nil, nil), (nil, 640, nil), (nil, nil, 480), (2_000, 1920, 1080),
        (-1, Int.min, Int.max),
    ] as [(Int?, Int?, Int?)])
    func attachmentsWithAndWithoutTheirOptionalNumbers(_ durationMs: Int?, _ width: Int?, _ height: Int?) throws {
        for size in [0, 1, 10_485_760, Int.max] {
            let attachment = AttachmentView(id: "a/1", kind: "video", contentType: "video/mp4; codecs=\"avc1\"", size: size,
                                            durationMs: durationMs, width: width, height: height, url: "https://x/v1/attachments/a1?x=1&y=2")
            try Self.expectSameText(Self.message(kind: .video, text: nil, attachment: attachment))
            try Self.expectSameText(Self.message(kind: .video, text: "caption", attachment: attachment, forwardedFrom: ForwardedFrom(messageId: "m0", senderId: "u9")))
        }
    }

    @Test func callRecordsAndForwardedMessages() throws {
        for duration in [0, 59, -1, Int.max] {
            try Self.expectSameText(Self.message(kind: .call, text: nil, call: CallRecord(callId: "k1", media: "video", outcome: "answered", durationSeconds: duration)))
        }
        try Self.expectSameText(Self.message(forwardedFrom: ForwardedFrom(messageId: "m\"0", senderId: "u/9")))
        try Self.expectSameText(Self.message(kind: .image, attachment: Self.attachment, call: CallRecord(callId: "k", media: "audio", outcome: "missed", durationSeconds: 0),
                                             forwardedFrom: ForwardedFrom(messageId: "", senderId: "")))
    }

    @Test func readByEmptyOneAndMany() throws {
        try Self.expectSameText(Self.message(readBy: []))
        try Self.expectSameText(Self.message(readBy: [""]))
        try Self.expectSameText(Self.message(readBy: (0..<200).map { "user-\($0)/\"\\\u{1}" }))
    }

    @Test func everyByteThatNeedsCareInEveryStringField() throws {
        let awkward = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
            + ["\"", "\\", "/", "//", "\u{7F}", "é", "e\u{301}", "\u{1F600}", "👨‍👩‍👧", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}",
               "\u{10FFFF}", "\u{85}", "\u{A0}", "\u{200B}", "\u{212A}", "日本語", "<script>&'", "\r\n", "a\u{0}b", ""]
        for value in awkward {
            try Self.expectSameText(Self.message(text: value))
            try Self.expectSameText(Self.message(
                kind: .image, text: value,
                attachment: AttachmentView(id: value, kind: value, contentType: value, size: 1, durationMs: nil, width: 2, height: nil, url: value),
                call: CallRecord(callId: value, media: value, outcome: value, durationSeconds: 3),
                forwardedFrom: ForwardedFrom(messageId: value, senderId: value), readBy: [value, value],
                id: value, dialogId: value, senderId: value, clientMessageId: value, createdAt: value))
        }
    }

    @Test func everyControlCharacterIsEscapedAsJSONEncoderDoes() throws {
        let all = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        try Self.expectSameText(Self.message(text: all))
        let text = try #require(MessageEvent(message: Self.message(text: "\u{0}\u{8}\u{C}\u{1F}/\u{7F}")).jsonText())
        #expect(text.contains(#""text":"\u0000\b\f\u001f\/\#u{7F}""#))
    }

    @Test func aVeryLongText() throws {
        let long = String(repeating: "Hello, \"world\" / \\ 😀 e\u{301} \u{2028}\n\t", count: 20_000)
        try Self.expectSameText(Self.message(text: long))
    }

    /// How JSONEncoder prints a `Double` is left to it: a location message is encoded by it.
    @Test func aLocationMessageIsLeftToJSONEncoder() throws {
        for location in [Location(latitude: 0.1, longitude: -179.99999999999997), Location(latitude: 1e-7, longitude: 5e300, name: "Café \"x\"")] {
            let event = MessageEvent(message: Self.message(kind: .location, text: nil, location: location))
            #expect(event.jsonText() == nil)
            #expect(RealtimeEvent.messageNew(event).payloadJSON() == (try Self.encoded(event)))
        }
    }

    /// Seeded random messages: every string from an alphabet of escapes, controls, non-ASCII and
    /// emoji, every optional present or not.
    @Test func aGeneratedCorpusMatchesJSONEncoder() throws {
        var random = SeededRandom(seed: 0x5EED_0001)
        for _ in 0..<3_000 {
            try Self.expectSameText(Self.randomMessage(&random))
        }
    }

    static let alphabet: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
        "a", "Z", "0", " ", "\"", "\\", "/", "\u{7F}", "é", "e", "\u{301}", "\u{1F600}", "\u{1F1FA}", "\u{1F1F8}", "\u{200D}",
        "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}", "\u{85}", "\u{A0}", "日", "\u{212A}", "{", "}", "[", "]", ":", ",",
        "u", "\\u0000", "\u{D7FF}", "\u{E000}",
    ]

    static func randomString(_ random: inout SeededRandom, maxLength: Int = 24) -> String {
        let length = Int(random.next() % UInt64(maxLength + 1))
        return (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
    }

    static func randomInt(_ random: inout SeededRandom) -> Int {
        switch random.next() % 4 {
        case 0: 0
        case 1: Int(truncatingIfNeeded: random.next())
        case 2: Int(random.next() % 100_000)
        default: -Int(random.next() % 1_000)
        }
    }

    static func randomMessage(_ random: inout SeededRandom) -> MessageView {
        func maybe<T>(_ make: (inout SeededRandom) -> T) -> T? { random.next() % 2 == 0 ? nil : make(&random) }
        let kinds = MessageKind.allCases.filter { $0 != .location }
        return MessageView(
            id: randomString(&random), dialogId: randomString(&random), senderId: randomString(&random),
            clientMessageId: randomString(&random), kind: kinds[Int(random.next() % UInt64(kinds.count))],
            text: maybe { randomString(&$0, maxLength: 200) },
            attachment: maybe { random in
                AttachmentView(id: randomString(&random), kind: randomString(&random), contentType: randomString(&random),
                               size: randomInt(&random), durationMs: random.next() % 2 == 0 ? nil : randomInt(&random),
                               width: random.next() % 2 == 0 ? nil : randomInt(&random), height: random.next() % 2 == 0 ? nil : randomInt(&random),
                               url: randomString(&random))
            },
            call: maybe { random in
                CallRecord(callId: randomString(&random), media: randomString(&random), outcome: randomString(&random), durationSeconds: randomInt(&random))
            },
            forwardedFrom: maybe { random in ForwardedFrom(messageId: randomString(&random), senderId: randomString(&random)) },
            createdAt: randomString(&random),
            readBy: (0..<Int(random.next() % 5)).map { _ in randomString(&random) })
    }
}

import Foundation
import ParleyCore
@testable import ParleyProtocol
import ParleyTestSupport
import Testing

/// The `message.send` fast path answers only what it fully reads, and then exactly as
/// JSONDecoder does; everything else it leaves to JSONDecoder, so `CommandFrame.decode` answers
/// every frame — accepted or refused, with its code and id — as it did before.
@Suite struct MessageSendFastPathTests {
    /// Both values alike down to every scalar of every string (`String ==` would take
    /// canonically equivalent text as equal; their descriptions' bytes do not).
    static func expectExactly(_ value: Any, _ expected: Any, _ frame: [UInt8], sourceLocation: SourceLocation) {
        let text = String(reflecting: value), expectedText = String(reflecting: expected)
        #expect(text.utf8.elementsEqual(expectedText.utf8), "\(String(decoding: frame, as: UTF8.self)): \(text) != \(expectedText)",
                sourceLocation: sourceLocation)
    }

    /// Checks one frame; true when the fast path took it.
    @discardableResult
    static func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let slow = CommandFrame.decodeWithJSONDecoder(bytes)
        let decoded = CommandFrame.decode(bytes)
        expectExactly(decoded, slow, bytes, sourceLocation: sourceLocation)
        guard let fast = CommandFrame.decodeMessageSend(bytes) else { return false }
        guard case .success(let frame) = slow else {
            Issue.record("fast path took what JSONDecoder refuses: \(String(decoding: bytes, as: UTF8.self)) → \(slow)", sourceLocation: sourceLocation)
            return true
        }
        expectExactly(fast, frame, bytes, sourceLocation: sourceLocation)
        return true
    }

    static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        check(Array(text.utf8), sourceLocation: sourceLocation)
    }

    static let valid: [String] = [
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"hi"}"#,
        #"{"type":"message.send","id":"s1","dialogId":"d","clientMessageId":"c","kind":"text","text":"hi"}"#,
        #"{"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"hi","id":17}"#,
        #"{"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":null,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":null}"#,
        #"{"id":0,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"image","attachmentId":"a1"}"#,
        #"{"id":-5,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"video","attachmentId":"a1","text":"x"}"#,
        #"{"id":999999999999999999,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"audio","attachmentId":null}"#,
        #"{"id":-999999999999999999,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"call"}"#,
        #"{"id":"","type":"message.send","dialogId":"","clientMessageId":"","kind":"text","text":""}"#,
        #"{"id":"f","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","forwardMessageId":"m0"}"#,
        #"{"id":"f","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","forwardMessageId":null,"location":null}"#,
        #"{"id":"f","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"location"}"#,
        " \t\r\n{ \"id\" : \"s1\" ,\n\t\"type\"\r:\"message.send\" , \"dialogId\":\"d\",\"clientMessageId\" :\"c\",\"kind\": \"text\" , \"text\" : \"hi\" } \n\t\r ",
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\"\\\/\b\f\n\r\t"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\u0041\u00e9\u00E9\u20AC\u2028\uFFFD\uD83D\uDE00\ud83d\ude00\uDBFF\uDFFF"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\u0001 and \u001f and \u007f"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"é e\#u{301} 😀 👨‍👩‍👧 \#u{2028}\#u{2029} \#u{FEFF} \#u{7F} \#u{212A}"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","t\u0065xt":"escaped key"}"#,
        #"{"id":"s1","type":"message\u002esend","dialogId":"d","clientMessageId":"c","kind":"t\u0065xt"}"#,
        #"{"id":"\u00e9\ud83d\ude00","type":"message.send","dialogId":"d\/x","clientMessageId":"c\n","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"{\"nested\":[1,2]}"}"#,
    ]

    @Test(arguments: valid)
    func validFramesTakeTheFastPathAndMatchJSONDecoder(_ text: String) {
        #expect(Self.check(text), "the fast path should take \(text)")
    }

    @Test func aLongTextTakesTheFastPath() {
        let long = String(repeating: #"Hello, \"world\" \/ \\ 😀 \u00e9 \n"#, count: 10_000)
        #expect(Self.check(#"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\#(long)"}"#))
    }

    static let leftToJSONDecoder: [String] = [
        // Not a message.send, or not one it fully reads.
        #"{"id":"s1","type":"ping"}"#,
        #"{"id":"s1","type":"message.read","dialogId":"d","upToMessageId":"m"}"#,
        #"{"id":"s1","type":"message.sendx","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":null,"dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"sticker"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"Text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":null,"clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":5,"clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":5}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":true}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":["a"]}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":{"a":1}}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"location","location":{"latitude":1.5,"longitude":2}}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"location","location":{"latitude":1.5}}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","extra":1}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","Text":"x"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","\#u{212A}ind":"x"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","":"x"}"#,
        // Repeated keys.
        #"{"id":"s1","id":"s2","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"a","text":"b"}"#,
        #"{"id":"s1","type":"message.send","type":"ping","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","t\u0065xt":"a","text":"b"}"#,
        // Ids it does not read exactly.
        #"{"id":1.0,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":1.5,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":1e3,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":1E3,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":-0,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":01,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":+1,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":-,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":1234567890123456789,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":9223372036854775807,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":9223372036854775808,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":123456789012345678901234567890,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":true,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":{"no":1},"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":[1],"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":nul,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":nulls,"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        // Strings it does not read.
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\ud83d"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\ude00"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\ud83d\u0041"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\ud83dx"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\ude00\ud83d"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\u12"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\u12g4"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\x41"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\'"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"\U0041"}"#,
        "{\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\",\"text\":\"a\nb\"}",
        "{\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\",\"text\":\"a\u{0}b\"}",
        "{\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\",\"text\":\"a\u{1F}b\"}",
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":'hi'}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":"unterminated}"#,
        // Not one JSON object.
        "",
        " ",
        "{",
        "{}",
        "[]",
        "null",
        #""message.send""#,
        #"[{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}]"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"} x"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}{}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text",}"#,
        #"{,"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text""#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text" "text":"x"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text"}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":}"#,
        #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind"="text"}"#,
        #"{'id':'s1','type':'message.send','dialogId':'d','clientMessageId':'c','kind':'text'}"#,
        #"{id:"s1",type:"message.send",dialogId:"d",clientMessageId:"c",kind:"text"}"#,
        "{\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\"}\u{0}",
        "\u{FEFF}{\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\"}",
        "{\u{A0}\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\"}",
        "{\u{B}\"id\":\"s1\",\"type\":\"message.send\",\"dialogId\":\"d\",\"clientMessageId\":\"c\",\"kind\":\"text\"}",
        #"/* c */{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
    ]

    @Test(arguments: leftToJSONDecoder)
    func whatItDoesNotFullyReadIsLeftToJSONDecoder(_ text: String) {
        #expect(!Self.check(text), "the fast path should leave \(text) to JSONDecoder")
    }

    /// Bytes that are not UTF-8, inside a string and out.
    @Test func invalidUTF8IsLeftToJSONDecoder() {
        let prefix = Array(#"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text","text":""#.utf8)
        let suffix = Array(#""}"#.utf8)
        for bad: [UInt8] in [[0x80], [0xC3], [0xC3, 0x28], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                             [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xF0, 0x9F, 0x98]] {
            #expect(!Self.check(prefix + bad + suffix))
            #expect(!Self.check(prefix + bad + Array(#"\n"#.utf8) + suffix))
            #expect(!Self.check(prefix + Array(#"\n"#.utf8) + bad + suffix))
            #expect(!Self.check(prefix + bad + Array(#"\u00e9"#.utf8) + suffix))
        }
        #expect(!Self.check([0xFF] + Array(#"{"type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#.utf8)))
    }

    /// The same frames, as UTF-16 (which JSONDecoder reads too).
    @Test func otherEncodingsAreLeftToJSONDecoder() {
        let text = #"{"id":"s1","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#
        let utf16 = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(!Self.check(utf16))
        #expect(!Self.check([0xFF, 0xFE] + utf16))
        #expect(!Self.check(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
    }

    /// The frames every other test of `CommandFrame` reads, answered as before.
    @Test func everyOtherCommandIsAnsweredAsBefore() {
        for text in [
            #"{"type":"ping"}"#, #"{"type":"sync","since":5}"#, #"{"id":3}"#, "[1,2]", "not json",
            #"{"id":3,"type":"call.explode"}"#, #"{"id":3,"type":"call.accept","callId":"k"}"#,
            #"{"id":3,"type":"sync","since":"yesterday"}"#, #"{"id":"a","id":"b","type":"message.send","dialogId":"d","clientMessageId":"c","kind":"text"}"#,
        ] {
            #expect(!Self.check(text))
        }
    }

    /// Seeded mutants of valid frames — bytes flipped, inserted, deleted, replaced by ones that
    /// matter to JSON: wherever the fast path answers, it answers as JSONDecoder does.
    @Test func aMutationCorpusAgreesWithJSONDecoder() {
        var random = SeededRandom(seed: 0x5EED_0002)
        let interesting: [UInt8] = Array(#""\{}[],: nul0123456789-+.eEtuU/"#.utf8) + [0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        var taken = 0, mutants = 0
        for _ in 0..<8_000 {
            var bytes = Array(Self.valid[Int(random.next() % UInt64(Self.valid.count))].utf8)
            for _ in 0...(random.next() % 4 == 0 ? 2 : 0) {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                let byte = random.next() % 2 == 0 ? interesting[Int(random.next() % UInt64(interesting.count))] : UInt8(truncatingIfNeeded: random.next())
                switch random.next() % 4 {
                case 0 where position < bytes.count: bytes[position] ^= UInt8(1) << (random.next() % 8)
                case 1: bytes.insert(byte, at: position)
                case 2 where position < bytes.count: bytes.remove(at: position)
                case _ where position < bytes.count: bytes[position] = byte
                default: bytes.append(byte)
                }
            }
            mutants += 1
            if Self.check(bytes) { taken += 1 }
        }
        // Both sides are exercised: many mutants still read, many not.
        #expect(taken > mutants / 40 && taken < mutants - mutants / 40, "the fast path took \(taken) of \(mutants)")
    }
}

import Foundation
import Testing
@testable import ParleyLoadTest

@Suite("Realtime frames: one scan finds type, replyTo, ok and the message's sender and text; sends are written as JSON text")
struct FrameScanTests {
    private func scan(_ text: String) -> ServerFrame? { ServerFrame(text: text, receivedAt: .now) }

    @Test func readsTheHotPathMembersOfAMessageNew() throws {
        let frame = try #require(scan("""
            {"type":"message.new","message":{"id":"m1","dialogId":"d1","senderId":"u7","kind":"text",\
            "text":"load test message sent at 12345","createdAt":"2026-11-26T10:00:00Z"}}
            """))
        #expect(frame.type == "message.new")
        #expect(frame.replyTo == nil)
        #expect(frame.ok == false)
        #expect(frame.messageSenderID == "u7")
        #expect(frame.messageBody == "load test message sent at 12345")
        #expect((frame["message"] as? [String: Any])?["dialogId"] as? String == "d1")
    }

    @Test func readsARepliesMembersInAnyOrderWithWhitespace() throws {
        let ok = try #require(scan(" {\n \"ok\" : true ,\t\"replyTo\":\"s42\" , \"message\" : {\"text\":\"hi\"} } \r\n"))
        #expect(ok.replyTo == "s42")
        #expect(ok.ok)
        #expect(ok.type == nil)
        #expect(ok.messageSenderID == nil)
        #expect(ok.messageBody == "hi")
        let refused = try #require(scan(#"{"replyTo":"c1","ok":false,"error":{"code":"dialog_not_found","message":"no"}}"#))
        #expect(!refused.ok)
        #expect(refused.errorCode == "dialog_not_found")
    }

    @Test func decodesEscapesAsJSONSerializationDoes() throws {
        let text = #"{"type":"message.new","message":{"senderId":"a\"b\\c\/d","text":"\u00e9\u4e2d \ud83d\ude00 tab\there\nline \"q\" \u0041\b\f\r"}}"#
        let frame = try #require(scan(text))
        #expect(frame.messageSenderID == "a\"b\\c/d")
        #expect(frame.messageBody == "é中 😀 tab\there\nline \"q\" A\u{08}\u{0C}\r")
        let reference = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((reference["message"] as? [String: Any])?["text"] as? String == frame.messageBody)
        // Keys may be escaped too; a surrogate without its pair is U+FFFD; raw UTF-8 passes through.
        let keys = try #require(scan(#"{"typ\u0065":"x\ud800y","replyT\u006f":"\u00E9t\u00e9","message":{"text":"ünï €"}}"#))
        #expect(keys.type == "x\u{FFFD}y")
        #expect(keys.replyTo == "été")
        #expect(keys.messageBody == "ünï €")
    }

    @Test func onlyTheTopLevelAndTheMessagesOwnMembersCount() throws {
        // The same names deeper down (in arrays, in other objects, inside the message's own
        // objects, inside strings) are not the frame's.
        let frame = try #require(scan("""
            {"data":{"type":"inner","replyTo":"r0","ok":true,"message":{"senderId":"x","text":"y"}},
             "list":[{"type":"in-array"},"type",1.5e-3,-0,null,[[]],{}],
             "note":"\\"type\\":\\"in-string\\"",
             "message":{"reply":{"senderId":"deep","text":"deep"},"senderId":"u1","attachments":[{"text":"att"}]},
             "type":"message.new"}
            """))
        #expect(frame.type == "message.new")
        #expect(frame.replyTo == nil)
        #expect(!frame.ok)
        #expect(frame.messageSenderID == "u1")
        #expect(frame.messageBody == nil)
    }

    @Test func membersOfAnotherKindOrMissingAreNil() throws {
        let frame = try #require(scan(#"{"type":7,"replyTo":null,"ok":"true","message":"not an object"}"#))
        #expect(frame.type == nil)
        #expect(frame.replyTo == nil)
        #expect(!frame.ok)
        #expect(frame.messageSenderID == nil && frame.messageBody == nil)
        let empty = try #require(scan("{}"))
        #expect(empty.type == nil && empty.replyTo == nil && !empty.ok && empty.json.isEmpty)
        // A repeated key: the last one counts, as in the parsed object.
        let repeated = try #require(scan(#"{"type":"a","message":{"text":"t"},"type":"b","message":{"senderId":"s"}}"#))
        #expect(repeated.type == "b")
        #expect(repeated.messageBody == nil && repeated.messageSenderID == "s")
    }

    @Test(arguments: [
        "", " ", "[]", "\"type\"", "null", "{", "}", "{\"type\":\"a\"", "{\"type\":\"a\"}}", "{\"type\":\"a\"} x",
        "{\"type\" \"a\"}", "{\"type\":\"a\",}", "{,}", "{\"a\":[1,]}", "{\"a\":[1 2]}", "{type:\"a\"}", "{'type':'a'}",
        "{\"type\":\"a\nb\"}", "{\"type\":\"\\x\"}", "{\"type\":\"\\u12\"}", "{\"type\":\"\\u12G4\"}", "{\"type\":\"abc}",
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":+1}", "{\"a\":tru}", "{\"a\":nul}",
        "{\"a\":True}", "{\"skipped\":{\"deep\":[{\"x\":\"\\q\"}]}}", "{\"type\":\"a\",\"b\":\"\u{01}\"}", "{\"message\":{\"text\":\"x\"}", "{\"message\":{\"text\":}}", "{\"ok\":true false}",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
        "{\"a\":" + String(repeating: "{\"a\":", count: 300) + "1" + String(repeating: "}", count: 301),
    ])
    func malformedTextIsNoFrame(text: String) {
        #expect(scan(text) == nil)
    }

    @Test func acceptsWhatJSONSerializationAccepts() throws {
        let texts = [
            #"{"a":[1,-2.5,3e10,4E-2,0.0,-0],"b":{"c":{"d":[true,false,null,"s",{}]}},"type":"t"}"#,
            #"{"":"","\\":"\"","\u0000":"\u001f"}"#,
            "{\"deep\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}",
        ]
        for text in texts {
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
            #expect(scan(text) != nil, "\(text)")
        }
    }

    @Test func writesAFlatObjectOfStringsThatParsesBack() throws {
        let text = JSONText.object([
            "type": "message.send", "id": "s1", "dialogId": "d-1", "text": "say \"hi\" \\ back\n\t\u{01}\u{1F} é 😀 \u{7F}",
        ])
        #expect(text.hasPrefix(#"{"type":"message.send","id":"s1","dialogId":"d-1","text":"say \"hi\" \\ back\n\t\u0001\u001f é 😀"#))
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object == ["type": "message.send", "id": "s1", "dialogId": "d-1", "text": "say \"hi\" \\ back\n\t\u{01}\u{1F} é 😀 \u{7F}"])
        #expect(JSONText.object([:]) == "{}")
        let frame = try #require(ServerFrame(text: JSONText.object(["type": "a\"b", "text": "x"]), receivedAt: .now))
        #expect(frame.type == "a\"b")
    }
}

import Foundation
import ParleyCore
import ParleyProtocol
import Testing

/// Every event of the catalogue: the frame carries `type`, `seq` and the payload's fields side by
/// side; what is stored reads back as the same value.
@Suite struct RealtimeEventTests {
    static let message = MessageView(
        id: "m1", dialogId: "d1", senderId: "u1", clientMessageId: "c1", kind: .image, text: nil,
        attachment: AttachmentView(id: "a1", kind: "image", contentType: "image/jpeg", size: 10, durationMs: nil, width: 4, height: 3,
                                   url: "http://x/v1/attachments/a1"),
        call: nil, createdAt: "2026-11-25T10:00:00Z", readBy: ["u1"])

    static let all: [RealtimeEvent] = [
        .friendRequest(FriendRequestEvent(id: "r1", from: "u1", to: "u2", createdAt: "2026-11-25T10:00:00Z")),
        .friendAccepted(UserRefEvent(userId: "u2")),
        .friendRemoved(UserRefEvent(userId: "u3")),
        .messageNew(MessageEvent(message: message)),
        .messageRead(ReadEvent(dialogId: "d1", userId: "u2", upToMessageId: "m1", readAt: "2026-11-25T10:00:01Z")),
        .typing(TypingEvent(dialogId: "d1", userId: "u2")),
        .dialogUpdated(DialogEvent(dialog: .init(id: "d1", type: .group, name: "Team", avatarUrl: nil, memberIds: ["u1", "u2"],
                                                 updatedAt: "2026-11-25T10:00:00Z"))),
        .dialogDeleted(DialogRefEvent(dialogId: "d1")),
        .messageRequest(MessageRequestEvent(request: .init(id: "d1", dialogId: "d1", from: "u1", to: "u2", status: "pending",
                                                            createdAt: "2026-11-25T10:00:00Z", message: message))),
        .userUpdated(UserUpdatedEvent(user: .init(id: "u1", name: "Ann", status: "out", avatarUrl: nil, online: true,
                                                  lastSeen: "2026-11-25T09:00:00Z"))),
        .storyNew(StoryEvent(storyId: "s1", ownerId: "u1")),
        .callIncoming(CallIncomingEvent(callId: "k1", from: "u1", media: .video)),
        .callAccepted(CallRefEvent(callId: "k1")),
        .callEnded(CallEndedEvent(callId: "k1", reason: .answeredElsewhere, durationSeconds: 0)),
        .callMedia(CallMediaEvent(callId: "k1", from: "u1", audio: false, video: true)),
    ]

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theCatalogueNamesEveryEventOnce() {
        #expect(Self.all.map(\.type) == RealtimeEvent.types)
        #expect(Set(RealtimeEvent.types).count == RealtimeEvent.types.count)
    }

    @Test(arguments: all)
    func whatIsStoredReadsBackAsTheSameEvent(_ event: RealtimeEvent) throws {
        #expect(RealtimeEvent.decode(type: event.type, payload: event.payloadJSON()) == event)
    }

    @Test(arguments: all)
    func theFrameHoldsTypeSeqAndThePayloadSideBySide(_ event: RealtimeEvent) throws {
        let frame = try Self.object(ServerFrame.event(event, seq: 42).text)
        let payload = try Self.object(event.payloadJSON())
        #expect(frame["type"] as? String == event.type)
        #expect(frame["seq"] as? Int == 42)
        #expect(Set(frame.keys) == Set(payload.keys).union(["type", "seq"]))
        #expect(try Self.object(ServerFrame.event(event, seq: nil).text)["seq"] == nil, "an event not stored has no seq")
    }

    @Test(arguments: all)
    func aFramePutTogetherAroundTheStoredPayloadIsTheEncodedFrame(_ event: RealtimeEvent) throws {
        let spliced = try #require(ServerFrame.eventText(type: event.type, seq: 9_007_199_254, payloadJSON: event.payloadJSON()))
        let encoded = ServerFrame.event(event, seq: 9_007_199_254).text
        #expect(try Self.object(spliced) as NSDictionary == Self.object(encoded) as NSDictionary, "\(spliced)\n\(encoded)")
    }

    @Test func aStoredPayloadThatIsNoObjectIsNotSpliced() throws {
        #expect(try Self.object(#require(ServerFrame.eventText(type: "typing", seq: 3, payloadJSON: "{}"))) as NSDictionary
                == ["type": "typing", "seq": 3] as NSDictionary)
        #expect(ServerFrame.eventText(type: "typing", seq: 3, payloadJSON: "[1]") == nil)
        #expect(ServerFrame.eventText(type: "typing", seq: 3, payloadJSON: "") == nil)
        #expect(ServerFrame.eventText(type: #"ty"pe"#, seq: 3, payloadJSON: "{}") == nil)
        #expect(ServerFrame.eventText(type: "typing", seq: 3, payloadJSON: "{") == nil)
        #expect(ServerFrame.eventText(type: "typing", seq: 3, payloadJSON: "{ \n\t}") == #"{"type":"typing","seq":3}"#)
    }

    /// The payload goes in byte for byte, whatever characters it holds.
    @Test func aPayloadIsSplicedByteForByte() {
        let payload = #"{"text":"e\u0301 👩‍👩‍👧 é","n":1}"#
        #expect(ServerFrame.eventText(type: "message.new", seq: 5, payloadJSON: payload)
                == #"{"type":"message.new","seq":5,"text":"e\u0301 👩‍👩‍👧 é","n":1}"#)
    }

    @Test func aMessageFrameIsWhatClientsRead() throws {
        let frame = try Self.object(ServerFrame.event(.messageNew(MessageEvent(message: Self.message)), seq: 7).text)
        let message = try #require(frame["message"] as? [String: Any])
        #expect(message["kind"] as? String == "image" && message["dialogId"] as? String == "d1")
        #expect((message["attachment"] as? [String: Any])?["width"] as? Int == 4)
        #expect(message["text"] == nil, "absent optionals are left out")
    }

    @Test func storedEventsOfUnknownTypesOrShapesAreNotRead() {
        #expect(RealtimeEvent.decode(type: "wobble.new", payload: "{}") == nil)
        #expect(RealtimeEvent.decode(type: "call.ended", payload: #"{"callId":"k","reason":"exploded","durationSeconds":0}"#) == nil)
        #expect(RealtimeEvent.decode(type: "typing", payload: "not json") == nil)
    }
}

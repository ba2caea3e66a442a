import Foundation
import ParleyCore
import ParleyProtocol
@testable import ParleyRealtime
import Testing

/// The wake-up nodes send each other after their commits (`WakeUp`): events whole when they
/// fit, numbers alone when not; every notification under NOTIFY's limit; lines that do not read
/// are skipped, never trusted.
@Suite struct WakeUpTests {
    static func stored(_ user: String, _ seq: Int64, _ event: RealtimeEvent, except: String? = nil) -> StoredEvent {
        StoredEvent(userID: UserID(rawValue: user), seq: seq, event: event, createdAt: Date(storageMillis: 1_795_348_800_123),
                    exceptSession: except.map(SessionID.init(rawValue:)), payloadJSON: event.payloadJSON())
    }

    @Test func oneEventToSeveralUsersIsOnePartAndReadsBackWhole() throws {
        let removed = RealtimeEvent.friendRemoved(UserRefEvent(userId: "bo"))
        let other = RealtimeEvent.friendAccepted(UserRefEvent(userId: "cy"))
        let events = [Self.stored("ann", 7, removed, except: "phone"), Self.stored("dee", 3, removed, except: "phone"),
                      Self.stored("ann", 8, other)]
        let parts = WakeUp.parts(for: events)
        #expect(parts.count == 2)
        let payloads = WakeUp.payloads(node: "node-1", parts: parts)
        #expect(payloads.count == 1)
        let read = try #require(WakeUp.parse(payloads[0]))
        #expect(read == WakeUp(node: "node-1", parts: parts))
        guard case .event(let type, let payload, let millis, let except, let numbers) = read.parts[0] else {
            Issue.record("not an event part: \(read.parts[0])")
            return
        }
        #expect(type == "friend.removed" && payload == removed.payloadJSON() && millis == 1_795_348_800_123)
        #expect(except == SessionID(rawValue: "phone"))
        #expect(numbers == [.init(user: UserID(rawValue: "ann"), seq: 7), .init(user: UserID(rawValue: "dee"), seq: 3)])
        #expect(RealtimeEvent.decode(type: type, payload: payload) == removed)
    }

    /// An event a wake-up carries is kept as its JSON (not decoded on the way to a socket): its
    /// frame is the frame of the event it was made from, and it decodes to that event when asked.
    /// Only a known type with an object payload is carried so.
    @Test func aCarriedEventFramesAndDecodesAsTheEventItWasMadeFrom() throws {
        let message = RealtimeEvent.typing(TypingEvent(dialogId: "d-1", userId: "bo \"the\" \u{1F600}"))
        let made = Self.stored("ann", 12, message, except: "phone")
        let payload = try #require(made.payloadJSON)
        #expect(StoredEvent.canCarry(type: message.type, payloadJSON: payload))
        let carried = StoredEvent(carried: message.type, payloadJSON: payload, userID: made.userID, seq: 12,
                                  createdAt: made.createdAt, exceptSession: made.exceptSession)
        // The frame the event itself encodes to, key order aside.
        func object(_ text: String) throws -> NSDictionary {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
        }
        #expect(try object(carried.frame) == object(ServerFrame.event(message, seq: 12).text))
        #expect(carried.event == message && carried.type == "typing")

        #expect(!StoredEvent.canCarry(type: "story.gone", payloadJSON: payload), "a type this version does not know")
        #expect(!StoredEvent.canCarry(type: message.type, payloadJSON: "[1]"), "not an object")
        #expect(!StoredEvent.canCarry(type: "typ\"ing", payloadJSON: payload))
        let unreadable = StoredEvent(carried: "typing", payloadJSON: #"{"dialogId":7}"#, userID: made.userID, seq: 1,
                                     createdAt: made.createdAt, exceptSession: nil)
        #expect(unreadable.event == nil && unreadable.frame == #"{"type":"typing","seq":1,"dialogId":7}"#)
    }

    @Test func anEventTooLargeForANotificationGoesAsNumbersAndManyPartsSplitUnderTheLimit() throws {
        let huge = RealtimeEvent.friendRemoved(UserRefEvent(userId: String(repeating: "x", count: 9_000)))
        #expect(WakeUp.parts(for: [Self.stored("ann", 4, huge), Self.stored("bo", 9, huge)])
                == [.range(UserID(rawValue: "ann"), first: 4, last: 4), .range(UserID(rawValue: "bo"), first: 9, last: 9)])

        let medium = RealtimeEvent.friendRemoved(UserRefEvent(userId: String(repeating: "y", count: 3_000)))
        let parts = (1...10).flatMap { WakeUp.parts(for: [Self.stored("u\($0)", Int64($0), medium)]) }
        let payloads = WakeUp.payloads(node: "n", parts: parts)
        #expect(payloads.count == 5)
        #expect(payloads.allSatisfy { $0.utf8.count <= WakeUp.limit })
        #expect(payloads.flatMap { WakeUp.parse($0)?.parts ?? [] } == parts, "every part once, in order")
    }

    @Test(arguments: [
        "", "\n", "node\nx what", "node\nr ann 5", "node\nr ann five 6", "node\nr ann 6 5", "node\ne t 1 - ann:x {}",
        "node\ne t 1 - {}", "node\ne t notanumber - ann:1 {}", "node user:1:2 bo:3:4",
        "node\nr ann 99999999999999999999 99999999999999999999", "node\nr ann 1 2x", "node\nrr ann 1 2", "node\ne t 1 - ann:- {}",
    ])
    func linesThatDoNotReadAreSkipped(payload: String) {
        let read = WakeUp.parse(payload)
        #expect(read == nil || read!.parts.isEmpty)
    }

    /// Numbers as `Int64(_:)` reads them, at the edges too; a user's id and a payload whole, in
    /// any script.
    @Test func numbersAndTextReadBackExactly() throws {
        let read = try #require(WakeUp.parse("n\nr ann -9223372036854775808 9223372036854775807\ne t +5 - zoë:0,bo:12 {\"text\":\"é 😀\"}"))
        #expect(read.parts == [
            .range(UserID(rawValue: "ann"), first: Int64.min, last: Int64.max),
            .event(type: "t", payloadJSON: #"{"text":"é 😀"}"#, createdAtMillis: 5, exceptSession: nil,
                   numbers: [.init(user: UserID(rawValue: "zoë"), seq: 0), .init(user: UserID(rawValue: "bo"), seq: 12)]),
        ])
    }

    /// A payload with a line break (not what the protocol's encoder writes) or a session id that
    /// would break the line goes as numbers alone.
    @Test func whatWouldBreakALineGoesAsNumbersNeverInLine() {
        let event = RealtimeEvent.friendRemoved(UserRefEvent(userId: "bo"))
        var broken = Self.stored("ann", 1, event)
        broken.payloadJSON = "{\n}"
        #expect(WakeUp.parts(for: [broken, Self.stored("bo", 2, event, except: "a b")])
                == [.range(UserID(rawValue: "ann"), first: 1, last: 1), .range(UserID(rawValue: "bo"), first: 2, last: 2)])
        #expect(WakeUp.isToken("3f2c-ab") && !WakeUp.isToken("a:b") && !WakeUp.isToken("a,b") && !WakeUp.isToken(""))
    }
}

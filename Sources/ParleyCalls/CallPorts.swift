import Foundation
import ParleyChat
import ParleyCore
import ParleyFriends
import ParleyProtocol
import ParleyRelay

// What `CallService` needs from the rest of the server, each behind a protocol of its own so
// the service can be tested against fakes; the real ones follow each protocol.

/// Relay legs: one per device in a call.
public protocol CallLegs: Sendable {
    /// A leg for a device's offer, and the relay's answer.
    func makeLeg(offer: String, call: CallID) async throws(ParleyError) -> (LegID, answer: String)
    /// Forwards each leg's media to the other.
    func pairLegs(_ a: LegID, _ b: LegID) async
    func releaseLeg(_ leg: LegID) async
    /// An ICE restart of a live leg (a network switch): the new offer in, the relay's answer out;
    /// the leg keeps its DTLS, SRTP and partner.
    func restartLeg(_ leg: LegID, offer: String) async throws(ParleyError) -> String
}

/// Who may call whom (friends only).
public protocol CallPermissions: Sendable {
    func requireFriendship(from caller: UserID, to callee: UserID) async throws
}

/// Where finished calls are written, and read back as a history.
public protocol CallRecorder: Sendable {
    func record(_ call: CallHistoryRecord) async throws
    /// The user's calls, newest first, before a keyset cursor (started at in ms, id).
    func calls(of user: UserID, before cursor: (Int64, String)?, limit: Int) async throws -> [CallHistoryRecord]
}

extension MediaRelay: CallLegs {
    public func makeLeg(offer: String, call: CallID) async throws(ParleyError) -> (LegID, answer: String) {
        do {
            let created = try await createLeg(offer: offer, owner: call.rawValue)
            return (created.0, created.answerSDP)
        } catch {
            throw error.parleyError
        }
    }

    public func pairLegs(_ a: LegID, _ b: LegID) async {
        try? await pair(a, b)
    }

    public func releaseLeg(_ leg: LegID) async {
        await release(leg)
    }

    public func restartLeg(_ leg: LegID, offer: String) async throws(ParleyError) -> String {
        do {
            return try await restartICE(leg, offer: offer)
        } catch {
            throw error.parleyError
        }
    }
}

extension FriendService: CallPermissions {}

/// The history table and the record in the pair's dialog.
public struct StoredCallRecorder: CallRecorder {
    let store: SQLCallStore
    let chat: ChatService

    public init(store: SQLCallStore, chat: ChatService) {
        self.store = store
        self.chat = chat
    }

    public func record(_ call: CallHistoryRecord) async throws {
        try await store.insert(call)
        _ = try await chat.recordCall(
            CallRecord(callId: call.id.rawValue, media: call.media.rawValue, outcome: call.answered ? "answered" : call.reason.rawValue,
                       durationSeconds: call.durationSeconds),
            caller: call.caller, callee: call.callee)
    }

    public func calls(of user: UserID, before cursor: (Int64, String)?, limit: Int) async throws -> [CallHistoryRecord] {
        try await store.calls(of: user, before: cursor, limit: limit)
    }
}

import Foundation
import ParleyCore

/// What a command answers on success: the fields beside `replyTo` and `ok`.
public enum CommandReply: Sendable, Equatable {
    /// Nothing more than `ok`.
    case done
    case pong(serverTime: Date)
    /// `sync`: the missed events went out before this reply; `calls` are the device's live calls
    /// (so a device that reconnected mid-call knows it is still in it).
    case synced(count: Int, latestSeq: Int64, more: Bool, calls: [LiveCall])
    case sent(MessageView)
    /// `call.invite`: the call's id and the relay's answer, or how it ended at once (`busy`).
    case invited(callId: String, sdp: String?, ended: CallEndReason?)
    /// `call.accept`, `call.restart`: the relay's answer.
    case answer(sdp: String)

    /// A call the device takes part in right now.
    public struct LiveCall: Sendable, Codable, Equatable {
        public enum State: String, Sendable, Codable { case ringing, active }
        public let callId: String
        public let state: State
        /// `outgoing` for the caller, `incoming` for the callee.
        public let direction: String
        /// The other person.
        public let peerId: String
        public let media: CallMedia

        public init(callId: String, state: State, direction: String, peerId: String, media: CallMedia) {
            self.callId = callId
            self.state = state
            self.direction = direction
            self.peerId = peerId
            self.media = media
        }
    }

    enum Key: String, CodingKey { case serverTime, count, latestSeq, more, calls, message, callId, sdp, ended }

    func encodeFields(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .done:
            break
        case .pong(let serverTime):
            try container.encode(serverTime, forKey: .serverTime)
        case .synced(let count, let latestSeq, let more, let calls):
            try container.encode(count, forKey: .count)
            try container.encode(latestSeq, forKey: .latestSeq)
            try container.encode(more, forKey: .more)
            try container.encode(calls, forKey: .calls)
        case .sent(let message):
            try container.encode(message, forKey: .message)
        case .invited(let callId, let sdp, let ended):
            try container.encode(callId, forKey: .callId)
            try container.encodeIfPresent(sdp, forKey: .sdp)
            try container.encodeIfPresent(ended, forKey: .ended)
        case .answer(let sdp):
            try container.encode(sdp, forKey: .sdp)
        }
    }
}

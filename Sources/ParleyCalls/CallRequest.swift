import Foundation
import ParleyCore
import ParleyProtocol

/// A command about a call held on another node, carried out there as if its device were
/// connected to that node; JSON on the node bus.
public enum CallRequest: Codable, Sendable, Equatable {
    case accept(CallID, user: UserID, device: SessionID, sdp: String)
    case decline(CallID, user: UserID)
    case hangup(CallID, user: UserID)
    case media(CallID, user: UserID, audio: Bool, video: Bool)
    case restart(CallID, user: UserID, device: SessionID, sdp: String)
    /// The device left (or came back to) the realtime socket on its node.
    case deviceLeft(SessionID, user: UserID)
    case deviceReturned(SessionID, user: UserID)
    case blocked(UserID, by: UserID)
    /// The calls the device takes part in (for its `sync`).
    case liveCalls(UserID, device: SessionID)

    public static let topic = "calls"
}

/// What a node answers to a `CallRequest`.
public enum CallReply: Codable, Sendable, Equatable {
    case done
    case answer(sdp: String)
    case liveCalls([CommandReply.LiveCall])
    case failed(ParleyError)

    /// The answer SDP, or the error the request met.
    func sdp() throws(ParleyError) -> String {
        switch self {
        case .answer(let sdp): return sdp
        case .failed(let error): throw error
        case .done, .liveCalls: throw ParleyError(.internalFailure, code: "internal_error", "A node answered a call request oddly")
        }
    }

    /// Nothing, or the error the request met.
    func check() throws(ParleyError) {
        if case .failed(let error) = self { throw error }
    }

    public var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }

    public static func decode(_ json: String) -> CallReply {
        (try? JSONDecoder().decode(CallReply.self, from: Data(json.utf8)))
            ?? .failed(ParleyError(.internalFailure, code: "internal_error", "A node's answer to a call request was not understood"))
    }
}

extension CallRequest {
    public var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }

    public static func decode(_ json: String) -> CallRequest? {
        try? JSONDecoder().decode(CallRequest.self, from: Data(json.utf8))
    }
}

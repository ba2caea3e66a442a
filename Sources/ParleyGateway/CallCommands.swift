import ParleyCalls
import ParleyCore
import ParleyRealtime

/// `call.invite`, `call.accept`, `call.decline`, `call.hangup` and `call.media` over the socket.
public enum CallCommands {
    struct Invite: Decodable { let to: String; let media: CallMedia; let sdp: String }
    struct Accept: Decodable { let callId: String; let sdp: String }
    struct Ref: Decodable { let callId: String }
    struct Media: Decodable { let callId: String; let audio: Bool; let video: Bool }
    struct Answer: Encodable, Sendable { let sdp: String }

    public static func register(_ calls: CallService, into commands: inout RealtimeCommands) {
        commands.register("call.invite") { caller, frame in
            let body = try RealtimeCommands.decode(Invite.self, from: frame)
            return try await calls.invite(from: caller.userID, device: caller.sessionID, to: UserID(rawValue: body.to),
                                          media: body.media, sdp: body.sdp)
        }
        commands.register("call.accept") { caller, frame in
            let body = try RealtimeCommands.decode(Accept.self, from: frame)
            return Answer(sdp: try await calls.accept(CallID(rawValue: body.callId), by: caller.userID, device: caller.sessionID, sdp: body.sdp))
        }
        commands.register("call.decline") { caller, frame in
            try await calls.decline(CallID(rawValue: try RealtimeCommands.decode(Ref.self, from: frame).callId), by: caller.userID)
            return nil
        }
        commands.register("call.hangup") { caller, frame in
            try await calls.hangup(CallID(rawValue: try RealtimeCommands.decode(Ref.self, from: frame).callId), by: caller.userID)
            return nil
        }
        commands.register("call.media") { caller, frame in
            let body = try RealtimeCommands.decode(Media.self, from: frame)
            try await calls.setMedia(CallID(rawValue: body.callId), by: caller.userID, audio: body.audio, video: body.video)
            return nil
        }
    }
}

import Foundation
import Hummingbird
import ParleyCalls
import ParleyCore

/// `/v1/calls`: the echo test call (the call history joins with the calls layer).
struct CallRoutes {
    let echo: EchoCalls

    struct EchoBody: Decodable { let sdp: String }
    struct EchoAnswer: ResponseEncodable { let callId: String; let sdp: String }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.post("echo", use: startEcho)
        group.delete("echo/:callId", use: endEcho)
    }

    /// POST /v1/calls/echo `{sdp}` → 201 `{callId, sdp}`: the relay's answer; media comes back.
    func startEcho(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(EchoBody.self, from: request)
        let (id, answer) = try await echo.start(for: me, offer: body.sdp)
        return try EchoAnswer(callId: id.rawValue, sdp: answer).response(from: request, context: context).with(status: .created)
    }

    func endEcho(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await echo.end(CallID(rawValue: try context.parameters.require("callId")), by: me)
        return Response(status: .noContent)
    }
}

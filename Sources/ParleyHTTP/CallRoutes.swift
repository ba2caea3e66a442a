import Foundation
import Hummingbird
import ParleyCalls
import ParleyAccounts
import ParleyCore
import ParleyProtocol

/// `/v1/calls`: the call history, the echo test call, and the TURN servers to call through.
struct CallRoutes {
    let echo: EchoCalls
    let calls: CallService
    let iceServers: ICEServerIssuer
    let accounts: AccountService
    let users: UserPresenter

    struct CallView: ResponseEncodable {
        let id: String
        let peer: UserBody
        let direction: String
        let media: CallMedia
        let outcome: String
        let startedAt: String
        let durationSeconds: Int
    }
    struct CallPage: ResponseEncodable { let calls: [CallView]; let nextCursor: String? }

    struct ICEServerBody: ResponseEncodable {
        let iceServers: [ICEServers.Server]
        let ttlSeconds: Int
        init(_ servers: ICEServers) { iceServers = servers.iceServers; ttlSeconds = servers.ttlSeconds }
    }
    struct EchoBody: Decodable { let sdp: String }
    struct EchoAnswer: ResponseEncodable { let callId: String; let sdp: String }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.get(use: history)
        group.get("ice-servers", use: turnServers)
        group.post("echo", use: startEcho)
        group.delete("echo/:callId", use: endEcho)
    }

    /// GET /v1/calls: the caller's calls, newest first, missed ones included.
    func history(_ request: Request, context: ParleyRequestContext) async throws -> CallPage {
        let me = try context.requirePrincipal().userID
        let cursor = request.uri.queryParameters["cursor"].flatMap { $0.isEmpty ? nil : String($0) }
        let page = try await calls.history(of: me, cursor: cursor, limit: try request.pageLimit(default: 30, max: 100))
        let peers = Dictionary(uniqueKeysWithValues: try await users.present(
            try await accounts.users(ids: Array(Set(page.calls.map { $0.caller == me ? $0.callee : $0.caller }))), to: me).map { ($0.id, $0) })
        let views = page.calls.compactMap { call -> CallView? in
            let outgoing = call.caller == me
            guard let peer = peers[(outgoing ? call.callee : call.caller).rawValue] else { return nil }
            return CallView(id: call.id.rawValue, peer: peer, direction: outgoing ? "outgoing" : "incoming", media: call.media,
                            outcome: call.outcome(for: me), startedAt: WireTime.string(call.startedAt), durationSeconds: call.durationSeconds)
        }
        return CallPage(calls: views, nextCursor: page.next)
    }

    /// GET /v1/calls/ice-servers: `{iceServers: [{urls, username, credential}], ttlSeconds}`, TURN
    /// servers with a credential of the caller's own (empty when TURN is not configured).
    func turnServers(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        var response = try ICEServerBody(iceServers.servers(for: me)).response(from: request, context: context)
        response.headers[.cacheControl] = "no-store"   // a credential: not for shared caches
        return response
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

import Foundation
import Hummingbird
import ParleyChat
import ParleyCore
import ParleyProtocol

/// `/v1/message-requests`: first messages from people who are not the caller's friends.
extension ChatRoutes {
    struct RequestView: ResponseEncodable {
        let id: String
        let dialogId: String
        let from: UserBody
        let createdAt: String
        let message: MessageView?
    }
    struct RequestList: ResponseEncodable { let requests: [RequestView] }

    func messageRequests(_ request: Request, context: ParleyRequestContext) async throws -> RequestList {
        let me = try context.requirePrincipal().userID
        let summaries = try await chat.messageRequests(of: me)
        let senders = try await users.present(try await accounts.users(ids: summaries.map(\.request.from)), to: me)
        var views: [RequestView] = []
        for summary in summaries {
            guard let from = senders.first(where: { $0.id == summary.request.from.rawValue }) else { continue }   // account gone
            views.append(RequestView(id: summary.request.dialogID.rawValue, dialogId: summary.request.dialogID.rawValue, from: from,
                                     createdAt: WireTime.string(summary.request.createdAt), message: summary.firstMessage))
        }
        return RequestList(requests: views)
    }

    /// The request's dialog joins the caller's list: answered with it.
    func acceptRequest(_ request: Request, context: ParleyRequestContext) async throws -> DialogEnvelope {
        let me = try context.requirePrincipal().userID
        let dialog = try await chat.acceptRequest(me, DialogID(rawValue: try context.parameters.require("id")))
        return DialogEnvelope(dialog: try await present(try await chat.dialog(me, dialog.id), to: me))
    }

    func declineRequest(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        try await chat.declineRequest(try context.requirePrincipal().userID, DialogID(rawValue: try context.parameters.require("id")))
        return Response(status: .noContent)
    }
}

import Foundation
import Hummingbird
import NIOCore
import ParleyAccounts
import ParleyChat
import ParleyCore
import ParleyFiles
import ParleyProtocol
import ParleyStories

/// `/v1/dialogs` and `/v1/attachments`.
struct ChatRoutes {
    let chat: ChatService
    let stories: StoryService
    let accounts: AccountService
    let users: UserPresenter
    let maxUploadBytes: Int

    struct CreateBody: Decodable {
        let type: String
        let userId: String?
        let name: String?
        let memberIds: [String]?
    }
    struct PatchBody: Decodable { let name: String?; let avatarAttachmentId: String? }
    struct MembersBody: Decodable { let userIds: [String] }
    struct SendBody: Decodable {
        let clientMessageId: String
        let kind: MessageKind
        let text: String?
        let attachmentId: String?
        let forwardMessageId: String?
        let location: Location?
    }
    struct ReadBody: Decodable { let upToMessageId: String }

    struct DialogView: ResponseEncodable {
        let id: String
        let type: DialogType
        let name: String?
        let avatarUrl: String?
        let members: [UserBody]
        let ownerId: String?
        let lastMessage: MessageView?
        let unreadCount: Int
        let updatedAt: String
    }
    struct DialogEnvelope: ResponseEncodable { let dialog: DialogView }
    struct DialogPage: ResponseEncodable { let dialogs: [DialogView]; let nextCursor: String? }
    struct MessageEnvelope: ResponseEncodable { let message: MessageView }
    struct MessagePage: ResponseEncodable { let messages: [MessageView]; let nextCursor: String? }
    struct AttachmentBody: ResponseEncodable {
        let id: String, kind: String, contentType: String, size: Int
        let durationMs: Int?, width: Int?, height: Int?, url: String
    }

    func add(dialogs group: RouterGroup<ParleyRequestContext>, attachments: RouterGroup<ParleyRequestContext>,
             requests: RouterGroup<ParleyRequestContext>) {
        group.get(use: list)
        group.post(use: create)
        group.get(":id", use: one)
        group.patch(":id", use: update)
        group.delete(":id", use: deleteForMe)
        group.post(":id/members", use: addMembers)
        group.delete(":id/members/me", use: leave)
        group.delete(":id/members/:userId", use: removeMember)
        group.get(":id/messages", use: history)
        group.post(":id/messages", use: send)
        group.post(":id/read", use: read)
        attachments.post(use: upload)
        attachments.get(":id", use: download)
        requests.get(use: messageRequests)
        requests.post(":id/accept", use: acceptRequest)
        requests.post(":id/decline", use: declineRequest)
    }

    func list(_ request: Request, context: ParleyRequestContext) async throws -> DialogPage {
        let me = try context.requirePrincipal().userID
        var cursor: DialogCursor?
        if let text = request.uri.queryParameters["cursor"], !text.isEmpty {
            guard let decoded = DialogCursor(encoded: String(text)) else {
                throw ParleyError.badRequest("cursor is not one this server gave out", code: "invalid_cursor")
            }
            cursor = decoded
        }
        let limit = try request.pageLimit(default: 30, max: 100)
        let page = try await chat.dialogs(of: me, cursor: cursor, limit: limit)
        var views: [DialogView] = []
        for summary in page.dialogs { views.append(try await present(summary, to: me)) }
        return DialogPage(dialogs: views, nextCursor: page.next?.encoded)
    }

    func create(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(CreateBody.self, from: request)
        let dialog: DialogRecord
        switch body.type {
        case "private":
            guard let other = body.userId else { throw ParleyError(.badRequest, code: "missing_field", "userId is required") }
            dialog = try await chat.openPrivateDialog(me, with: UserID(rawValue: other))
        case "group":
            guard let name = body.name else { throw ParleyError(.badRequest, code: "missing_field", "name is required") }
            dialog = try await chat.createGroup(me, name: name, memberIDs: (body.memberIds ?? []).map(UserID.init(rawValue:)))
        default:
            throw ParleyError.invalidField("type", "private or group")
        }
        let envelope = DialogEnvelope(dialog: try await present(try await chat.dialog(me, dialog.id), to: me))
        return try envelope.response(from: request, context: context).with(status: .created)
    }

    func one(_ request: Request, context: ParleyRequestContext) async throws -> DialogEnvelope {
        let me = try context.requirePrincipal().userID
        return DialogEnvelope(dialog: try await present(try await chat.dialog(me, try Self.dialogID(context)), to: me))
    }

    func update(_ request: Request, context: ParleyRequestContext) async throws -> DialogEnvelope {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(PatchBody.self, from: request)
        let id = try Self.dialogID(context)
        _ = try await chat.updateGroup(me, id, name: body.name, avatar: body.avatarAttachmentId.map(AttachmentID.init(rawValue:)))
        return DialogEnvelope(dialog: try await present(try await chat.dialog(me, id), to: me))
    }

    func addMembers(_ request: Request, context: ParleyRequestContext) async throws -> DialogEnvelope {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(MembersBody.self, from: request)
        let id = try Self.dialogID(context)
        _ = try await chat.addMembers(me, id, body.userIds.map(UserID.init(rawValue:)))
        return DialogEnvelope(dialog: try await present(try await chat.dialog(me, id), to: me))
    }

    func leave(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        try await chat.leave(try context.requirePrincipal().userID, try Self.dialogID(context))
        return Response(status: .noContent)
    }

    /// `?forEveryone=true`: the owner deletes the group for all its members; otherwise the
    /// conversation goes from the caller's list only.
    func deleteForMe(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        switch request.uri.queryParameters["forEveryone"].map { String($0) } {
        case nil, "false": try await chat.deleteForMe(me, try Self.dialogID(context))
        case "true": try await chat.deleteForEveryone(me, try Self.dialogID(context))
        default: throw ParleyError.invalidField("forEveryone", "true or false")
        }
        return Response(status: .noContent)
    }

    func removeMember(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let member = UserID(rawValue: try context.parameters.require("userId"))
        try await chat.removeMember(me, try Self.dialogID(context), member.rawValue == "me" ? me : member)
        return Response(status: .noContent)
    }

    func history(_ request: Request, context: ParleyRequestContext) async throws -> MessagePage {
        let me = try context.requirePrincipal().userID
        let before = request.uri.queryParameters["before"].flatMap { $0.isEmpty ? nil : MessageID(rawValue: String($0)) }
        let page = try await chat.history(me, try Self.dialogID(context), before: before, limit: try request.pageLimit(default: 50, max: 100))
        return MessagePage(messages: page.messages, nextCursor: page.next?.rawValue)
    }

    func send(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(SendBody.self, from: request)
        let message = try await chat.send(me, to: try Self.dialogID(context), OutgoingMessage(
            clientMessageID: body.clientMessageId, kind: body.kind, text: body.text,
            attachmentID: body.attachmentId.map(AttachmentID.init(rawValue:)),
            forwardMessageID: body.forwardMessageId.map(MessageID.init(rawValue:)), location: body.location))
        return try MessageEnvelope(message: message).response(from: request, context: context).with(status: .created)
    }

    func read(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(ReadBody.self, from: request)
        try await chat.markRead(me, try Self.dialogID(context), upTo: MessageID(rawValue: body.upToMessageId))
        return Response(status: .noContent)
    }

    /// The file as the raw body, or as the `file` part of a `multipart/form-data` body; either way
    /// written to disk as it arrives and refused as soon as it passes the largest kind's limit or
    /// what is left of the uploader's quota, the uploads they have under way counted.
    func upload(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        let view = try await chat.receivingUpload(me, declaredLength: declared) { slot in
            let staged: StagedFile?
            if let contentType = request.headers[.contentType], contentType.lowercased().hasPrefix("multipart/") {
                let form = try await UploadReceiver.receiveForm(
                    request.body, boundary: try UploadReceiver.boundary(contentType), fileField: "file", to: slot.path,
                    limit: slot.limit, overLimit: slot.overLimit)
                staged = form.file
            } else {
                let file = try await UploadReceiver.receive(request.body, to: slot.path, limit: slot.limit, overLimit: slot.overLimit)
                staged = file.size > 0 ? file : nil
            }
            guard let staged else {
                throw ParleyError.badRequest("The file is the request body, or its multipart part named file", code: "missing_body")
            }
            return try await chat.upload(me, staged: staged)
        }
        let body = AttachmentBody(id: view.id, kind: view.kind, contentType: view.contentType, size: view.size,
                                  durationMs: view.durationMs, width: view.width, height: view.height, url: view.url)
        return try body.response(from: request, context: context).with(status: .created)
    }

    /// The file, or the one range asked for, read from disk in chunks as the client takes them: a
    /// range is a seek and a read of just those bytes, however large the file.
    func download(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let stories = self.stories
        let file = try await chat.download(me, AttachmentID(rawValue: try context.parameters.require("id"))) { attachment, user in
            try await stories.mayFetch(attachment, viewer: user)   // viewers of a live story that shows it
        }
        var headers: HTTPFields = [.contentType: file.contentType, .cacheControl: "private, max-age=86400", .acceptRanges: "bytes"]
        let fileIO = FileIO()
        switch ByteRange.parse(request.headers[.range], size: file.size) {
        case .whole:
            let body = try await fileIO.loadFile(path: file.path, range: 0...max(file.size - 1, 0), context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .part(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
            let body = try await fileIO.loadFile(path: file.path, range: range, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        case .unsatisfiable:
            var response = ParleyError(.badRequest, code: "range_not_satisfiable",
                                       "The range starts past the end of the \(file.size)-byte file").errorResponse()
            response.status = .rangeNotSatisfiable
            response.headers[.contentRange] = "bytes */\(file.size)"
            response.headers[.acceptRanges] = "bytes"
            return response
        }
    }

    /// A dialog as `viewer` sees it: a private one takes the other person's name and picture.
    func present(_ summary: DialogSummary, to viewer: UserID) async throws -> DialogView {
        let people = try await users.present(try await accounts.users(ids: summary.memberIDs), to: viewer)
        let other = people.first { $0.id != viewer.rawValue }
        let dialog = summary.dialog
        let isPrivate = dialog.type == .private
        return DialogView(
            id: dialog.id.rawValue, type: dialog.type, name: isPrivate ? other?.name : dialog.name,
            avatarUrl: isPrivate ? other?.avatarUrl : dialog.avatarAttachmentID.map { "\(users.publicBaseURL)/v1/attachments/\($0.rawValue)" },
            members: people, ownerId: dialog.ownerID?.rawValue, lastMessage: summary.lastMessage, unreadCount: summary.unreadCount,
            updatedAt: WireTime.string(dialog.updatedAt))
    }

    static func dialogID(_ context: ParleyRequestContext) throws -> DialogID {
        DialogID(rawValue: try context.parameters.require("id"))
    }
}

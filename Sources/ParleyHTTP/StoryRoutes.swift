import Foundation
import Hummingbird
import ParleyAccounts
import ParleyChat
import ParleyCore
import ParleyProtocol
import ParleyStories

/// `/v1/stories`.
struct StoryRoutes {
    let stories: StoryService
    let chat: ChatService
    let accounts: AccountService
    let users: UserPresenter

    struct PostBody: Decodable { let attachmentId: String; let title: String }
    struct StoryBody: ResponseEncodable {
        let id: String
        let owner: UserBody
        let title: String
        let kind: String
        let attachment: AttachmentView?
        let durationMs: Int?
        let viewCount: Int
        let createdAt: String
        let expiresAt: String
        let viewed: Bool?
    }
    struct StoryEnvelope: ResponseEncodable { let story: StoryBody }
    struct StoryList: ResponseEncodable { let stories: [StoryBody] }
    struct FeedEntry: ResponseEncodable { let user: UserBody; let stories: [StoryBody] }
    struct Feed: ResponseEncodable { let users: [FeedEntry] }
    struct ViewerBody: ResponseEncodable { let user: UserBody; let viewedAt: String }
    struct Viewers: ResponseEncodable { let viewers: [ViewerBody] }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.post(use: post)
        group.get("feed", use: feed)
        group.get("mine", use: mine)
        group.post(":id/views", use: view)
        group.get(":id/viewers", use: viewers)
        group.delete(":id", use: delete)
    }

    func post(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(PostBody.self, from: request)
        let story = try await stories.post(me, attachment: AttachmentID(rawValue: body.attachmentId), title: body.title)
        let view = try await present([story], viewer: me, seen: nil)[0]
        return try StoryEnvelope(story: view).response(from: request, context: context).with(status: .created)
    }

    func feed(_ request: Request, context: ParleyRequestContext) async throws -> Feed {
        let me = try context.requirePrincipal().userID
        var entries: [FeedEntry] = []
        for group in try await stories.feed(me) {
            let views = try await present(group.stories, viewer: me, seen: group.seen)
            guard let owner = views.first?.owner else { continue }
            entries.append(FeedEntry(user: owner, stories: views))
        }
        return Feed(users: entries)
    }

    func mine(_ request: Request, context: ParleyRequestContext) async throws -> StoryList {
        let me = try context.requirePrincipal().userID
        return StoryList(stories: try await present(try await stories.mine(me), viewer: me, seen: nil))
    }

    func view(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await stories.view(me, StoryID(rawValue: try context.parameters.require("id")))
        return Response(status: .noContent)
    }

    func viewers(_ request: Request, context: ParleyRequestContext) async throws -> Viewers {
        let me = try context.requirePrincipal().userID
        let views = try await stories.viewers(me, StoryID(rawValue: try context.parameters.require("id")))
        let people = Dictionary(uniqueKeysWithValues: try await users.present(try await accounts.users(ids: views.map(\.viewerID)), to: me).map { ($0.id, $0) })
        return Viewers(viewers: views.compactMap { view in
            people[view.viewerID.rawValue].map { ViewerBody(user: $0, viewedAt: WireTime.string(view.viewedAt)) }
        })
    }

    func delete(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let me = try context.requirePrincipal().userID
        try await stories.delete(me, StoryID(rawValue: try context.parameters.require("id")))
        return Response(status: .noContent)
    }

    func present(_ records: [StoryRecord], viewer: UserID, seen: Set<StoryID>?) async throws -> [StoryBody] {
        let owners = Dictionary(uniqueKeysWithValues: try await users.present(
            try await accounts.users(ids: Array(Set(records.map(\.ownerID)))), to: viewer).map { ($0.id, $0) })
        let attachments = try await chat.attachmentViews(records.map(\.attachmentID))
        return records.compactMap { story in
            owners[story.ownerID.rawValue].map { owner in
                StoryBody(
                    id: story.id.rawValue, owner: owner, title: story.title, kind: story.kind,
                    attachment: attachments[story.attachmentID], durationMs: story.durationMs, viewCount: story.viewCount,
                    createdAt: WireTime.string(story.createdAt), expiresAt: WireTime.string(story.expiresAt),
                    viewed: seen.map { $0.contains(story.id) })
            }
        }
    }
}

import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCalls
import ParleyChat
import ParleyCore
import ParleyPresence
import ParleyFriends
import ParleyPush
import ParleyQuotes
import ParleyStories

/// Everything the HTTP edge needs from the layers below.
public struct HTTPDependencies: Sendable {
    public var accounts: AccountService
    public var friends: FriendService
    public var chat: ChatService
    public var stories: StoryService
    public var quotes: QuoteService
    public var echo: EchoCalls
    public var calls: CallService
    public var maxUploadBytes: Int
    public var publicBaseURL: String
    public var maxAvatarBytes: Int
    public var health: @Sendable () async -> Bool
    /// Each readiness check by name (database, migrations, relay): `/health/ready` answers 200
    /// only when all pass.
    public var readiness: @Sendable () async -> [String: Bool] = { [:] }
    /// Figures and the admin token for `/admin/…` and `/metrics`; disabled (401) unless set.
    public var operations = Operations.disabled
    /// Whether a user may open another realtime socket (the gateway's per-user bound), for the
    /// answer to a `GET /v1/realtime` that was not upgraded.
    public var realtimeAdmits: @Sendable (UserID) -> Bool = { _ in true }
    /// What each user may ask of this node, all authenticated requests and realtime commands
    /// together (the gateway's budget, the same object).
    public var budget = RequestBudget.unlimited
    /// TURN servers and credentials for `GET /v1/calls/ice-servers`; none unless set.
    public var iceServers = ICEServerIssuer.disabled
    /// Device tokens and notification settings; registration refused unless APNs is configured.
    public var push = PushSetup.disabled
    /// Proxies whose `X-Forwarded-For` names the client (rate limits count the real client).
    public var trustedProxies = TrustedProxies.none
    /// The web client's files, served at `/`; none unless set.
    public var webClient: WebClient?
    /// Online, last seen and live profile changes; users show no presence unless set.
    public var presence: PresenceService?

    public init(
        accounts: AccountService, friends: FriendService, chat: ChatService, stories: StoryService, quotes: QuoteService, echo: EchoCalls, calls: CallService, publicBaseURL: String, maxAvatarBytes: Int,
        maxUploadBytes: Int,
        health: @escaping @Sendable () async -> Bool
    ) {
        self.accounts = accounts
        self.friends = friends
        self.chat = chat
        self.stories = stories
        self.quotes = quotes
        self.echo = echo
        self.calls = calls
        self.maxUploadBytes = maxUploadBytes
        self.publicBaseURL = publicBaseURL
        self.maxAvatarBytes = maxAvatarBytes
        self.health = health
    }
}

/// Builds the router: thin routes that decode, call a domain service and encode.
public enum ParleyRouter {
    public static func build(_ deps: HTTPDependencies) -> Router<ParleyRequestContext> {
        let router = Router(context: ParleyRequestContext.self)
        let routeIndex = RouteIndex()
        // Outermost: error answers get the headers too.
        router.middlewares.add(SecurityHeadersMiddleware())
        router.middlewares.add(HTTPMetricsMiddleware(factory: deps.operations.metrics))
        // A span per request (a no-op unless tracing is configured, `tracing.otlpEndpoint`).
        router.middlewares.add(TracingMiddleware())
        router.middlewares.add(ErrorMiddleware<ParleyRequestContext>(routes: routeIndex))
        router.middlewares.add(ClientAddressMiddleware(trusted: deps.trustedProxies))
        router.middlewares.add(NulInAddressMiddleware())
        let users = UserPresenter(publicBaseURL: deps.publicBaseURL, relationships: deps.friends, presence: deps.presence)
        let auth = BearerAuthMiddleware(accounts: deps.accounts, budget: deps.budget)
        let mediaAuth = BearerAuthMiddleware(accounts: deps.accounts, queryTokenForReads: true, budget: deps.budget)

        router.get("health") { _, _ -> Response in
            await deps.health() ? Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: .init(string: #"{"status":"ok"}"#)))
                : ParleyError(.unavailable, code: "unhealthy", "The database does not answer").errorResponse()
        }
        // For a load balancer or a Kubernetes readiness probe: 503 while any check fails
        // (the database does not answer, migrations pending, the relay socket closed).
        router.get("health/ready") { _, _ -> Response in
            let checks = await deps.readiness()
            let failing = checks.filter { !$0.value }.keys.sorted()
            guard failing.isEmpty else {
                throw ParleyError(.unavailable, code: "not_ready", "Not ready: \(failing.joined(separator: ", "))")
            }
            let body = try JSONEncoder().encode(Readiness(status: "ready", checks: checks))
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: .init(bytes: body)))
        }
        // Reached only when the WebSocket upgrade did not happen.
        router.get("v1/realtime") { request, _ -> Response in
            guard let token = request.bearerToken ?? request.uri.queryParameters["token"].map(String.init),
                  let principal = try? await deps.accounts.authenticate(accessToken: token)
            else { throw ParleyError.unauthenticated }
            try deps.budget.admit(principal.userID)
            guard deps.realtimeAdmits(principal.userID) else {
                throw ParleyError(.rateLimited, code: "too_many_connections",
                                  "This account has as many realtime connections open as it may; close one first")
            }
            throw ParleyError(.badRequest, code: "upgrade_required", "Open this path as a WebSocket")
        }
        AuthRoutes(accounts: deps.accounts, users: users, maxAvatarBytes: deps.maxAvatarBytes)
            .add(to: router.group("v1/auth"))
        MeRoutes(accounts: deps.accounts, friends: deps.friends, users: users, presence: deps.presence, maxAvatarBytes: deps.maxAvatarBytes)
            .add(to: router.group("v1/me").add(middleware: auth))
        PushRoutes(push: deps.push, chat: deps.chat).add(to: router.group("v1/me").add(middleware: auth))
        UserRoutes(accounts: deps.accounts, users: users).add(to: router.group("v1/users").add(middleware: auth))
        AvatarRoutes(accounts: deps.accounts).add(to: router.group("v1/avatars").add(middleware: mediaAuth))
        FriendRoutes(friends: deps.friends, accounts: deps.accounts, users: users).add(
            friends: router.group("v1/friends").add(middleware: auth), blocks: router.group("v1/blocks").add(middleware: auth))
        CallRoutes(echo: deps.echo, calls: deps.calls, iceServers: deps.iceServers, accounts: deps.accounts, users: users).add(to: router.group("v1/calls").add(middleware: auth))
        StoryRoutes(stories: deps.stories, chat: deps.chat, accounts: deps.accounts, users: users)
            .add(to: router.group("v1/stories").add(middleware: auth))
        QuoteRoutes(quotes: deps.quotes, accounts: deps.accounts).add(to: router.group("v1/quotes").add(middleware: auth))
        ChatRoutes(chat: deps.chat, stories: deps.stories, accounts: deps.accounts, users: users, maxUploadBytes: deps.maxUploadBytes).add(
            dialogs: router.group("v1/dialogs").add(middleware: auth), attachments: router.group("v1/attachments").add(middleware: mediaAuth),
            requests: router.group("v1/message-requests").add(middleware: auth))
        let adminOnly = AdminTokenMiddleware(token: deps.operations.adminToken)
        AdminRoutes(operations: deps.operations, accounts: deps.accounts, friends: deps.friends).add(
            admin: router.group("admin").add(middleware: adminOnly), metrics: router.group("metrics").add(middleware: adminOnly))
        if let webClient = deps.webClient { WebClientRoutes(client: webClient).add(to: router) }
        routeIndex.load(router.routes)
        return router
    }
}

extension ParleyRouter {
    /// `GET /metrics` alone and without the admin token, for the listener on a private scrape
    /// network (`metrics.listen`); everything else there is 404.
    public static func metricsOnly(_ operations: Operations) -> Router<ParleyRequestContext> {
        let router = Router(context: ParleyRequestContext.self)
        router.get("metrics") { _, _ in await AdminRoutes.exposition(operations) }
        return router
    }
}

/// What `/health/ready` answers when every check passes.
struct Readiness: Encodable {
    var status: String
    var checks: [String: Bool]
}

import Hummingbird
import NIOCore
import ParleyAccounts
import ParleyCore
import ParleyFriends

/// The operations routes, all behind the admin token: `GET /admin/status` (JSON),
/// `GET /metrics` (Prometheus text) and `POST /admin/users` (verified accounts in bulk,
/// AdminRoutes+Users.swift).
struct AdminRoutes {
    let operations: Operations
    let accounts: AccountService
    let friends: FriendService

    /// Both groups come with the admin-token middleware already added.
    func add(admin: RouterGroup<ParleyRequestContext>, metrics group: RouterGroup<ParleyRequestContext>) {
        admin.get("status", use: status)
        admin.post("users", use: createUsers)
        group.get(use: metrics)
    }

    func status(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        var response = try await StatusSnapshot.gather(operations).response(from: request, context: context)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func metrics(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        await Self.exposition(operations)
    }

    /// What was recorded through swift-metrics, with the figures read now carried in beside it.
    static func exposition(_ operations: Operations) async -> Response {
        operations.metrics.collect(await StatusSnapshot.gather(operations).metricFamilies)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: operations.metrics.render())))
    }
}

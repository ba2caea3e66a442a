import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore

/// Admits requests with a valid `Authorization: Bearer <accessToken>` of an open session — or,
/// where `queryTokenForReads` is set (pictures and media), a GET with `?token=<accessToken>`, for
/// clients that load a URL without setting headers (AsyncImage, a plain AVPlayer URL). Each
/// request admitted takes one of its user's `budget` (`429 rate_limited` with `Retry-After`
/// when there is none left).
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext
    let accounts: AccountService
    var queryTokenForReads = false
    var budget = RequestBudget.unlimited

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let queryToken = queryTokenForReads && (request.method == .get || request.method == .head)
            ? request.uri.queryParameters["token"].map(String.init).flatMap { $0.isEmpty ? nil : $0 } : nil
        guard let token = request.bearerToken ?? queryToken else { throw ParleyError.unauthenticated }
        var context = context
        context.principal = try await accounts.authenticate(accessToken: token)
        context.logger[metadataKey: "user"] = "\(context.principal!.userID)"
        if let refusal = budget.taking(context.principal!.userID) {
            let retryAfter = RequestBudget.seconds(refusal.wait)
            if refusal.isToBeTold {
                context.logger.notice("a user passed their request budget; refusing (told once a minute)", metadata: ["retryAfter": "\(retryAfter)"])
            }
            throw ParleyError.rateLimited(retryAfter: retryAfter)
        }
        return try await next(request, context)
    }
}

extension Request {
    /// The token of an `Authorization: Bearer …` header, if there is one.
    var bearerToken: String? {
        guard let header = headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

import Hummingbird
import ParleyCore

/// Admits requests carrying `Authorization: Bearer <admin token>` (the operations routes).
/// Anything else is 401 `unauthenticated`, the same answer whether the header was missing,
/// malformed or wrong.
struct AdminTokenMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext
    let token: String

    static let refused = ParleyError(.unauthenticated, code: "unauthenticated", "A valid admin token is required")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let presented = request.bearerToken else { throw Self.refused }
        guard Self.matches(presented, expected: token) else {
            context.logger.notice("admin token refused", metadata: ["path": "\(request.uri.path)", "client": "\(context.clientAddress ?? "-")"])
            throw Self.refused
        }
        return try await next(request, context)
    }

    /// Compares the two tokens' SHA-256 digests without stopping at the first difference, so
    /// the time taken tells nothing about how much of a guess was right, nor (digests all being
    /// one length) how long the token is. An empty expected token matches nothing.
    static func matches(_ presented: String, expected: String) -> Bool {
        guard !expected.isEmpty else { return false }
        let a = Array(SecretToken.digest(of: presented).utf8), b = Array(SecretToken.digest(of: expected).utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

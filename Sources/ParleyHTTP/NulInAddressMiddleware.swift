import Hummingbird
import ParleyCore

/// A path or query that holds the NUL character (`%00`) is refused before any route reads it: no
/// PostgreSQL text holds it (a dialog id or a search with one would fail at the database), as a
/// JSON body's text may not (`NulEscape`).
struct NulInAddressMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.string.contains("%00") {
            throw ParleyError.badRequest("The address may not hold the NUL character (%00)")
        }
        return try await next(request, context)
    }
}

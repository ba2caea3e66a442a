import Hummingbird
import Logging
import ParleyCore

/// The one place where errors become HTTP answers: every failure leaves as the API.md error body
/// with a stable code, and only a real fault of ours is a 500 (logged, never shown).
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// When given, a 404 for a path that exists with other methods becomes 405 with `Allow`.
    let routes: RouteIndex?

    public init(routes: RouteIndex? = nil) {
        self.routes = routes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ParleyError {
            return error.errorResponse()
        } catch let error as HTTPError {
            if error.status == .notFound, let allowed = routes?.methods(at: request.uri.path), !allowed.isEmpty,
               !allowed.contains(request.method) {
                var response = ParleyError(.methodNotAllowed, code: "method_not_allowed",
                                           "\(request.uri.path) takes \(allowed.map(\.rawValue).joined(separator: ", "))").errorResponse()
                response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                return response
            }
            return Self.translate(error).errorResponse()
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            return ParleyError(.internalFailure, code: "internal_error", "Something went wrong on our side").errorResponse()
        }
    }

    static func translate(_ error: HTTPError) -> ParleyError {
        switch error.status {
        case .notFound: ParleyError(.notFound, code: "not_found", "No such route")
        case .methodNotAllowed: ParleyError(.badRequest, code: "method_not_allowed", "This route does not take that method")
        case .contentTooLarge: ParleyError(.tooLarge, code: "payload_too_large", "The request body is too large")
        case .unauthorized: .unauthenticated
        case .unsupportedMediaType: ParleyError(.unsupportedMedia, code: "unsupported_media_type", error.body ?? "Unsupported media type")
        default:
            error.status.code < 500
                ? ParleyError(.badRequest, code: "bad_request", error.body ?? error.status.reasonPhrase)
                : ParleyError(.internalFailure, code: "internal_error", "Something went wrong on our side")
        }
    }
}

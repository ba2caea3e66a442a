/// An error that reaches a person: it carries a stable snake_case `code` that clients branch on,
/// a human-readable message, and the kind of failure, which the HTTP edge maps to a status.
public struct ParleyError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Named (raw values), so an error can cross between the nodes of one installation.
    public enum Kind: String, Sendable, Equatable, Codable {
        case badRequest          // 400: malformed input
        case unauthenticated     // 401
        case forbidden           // 403
        case notFound            // 404
        case methodNotAllowed    // 405: the path exists, not with this method
        case conflict            // 409
        case gone                // 410: was there, is not any more
        case tooLarge            // 413
        case unsupportedMedia    // 415
        case unprocessable       // 422: well-formed, but a rule is broken
        case rateLimited         // 429
        case unavailable         // 503
        case internalFailure     // 500: never for bad input
    }

    public var kind: Kind
    public var code: String
    public var message: String
    /// Seconds a client should wait before retrying (rate limits).
    public var retryAfter: Int?

    public init(_ kind: Kind, code: String, _ message: String, retryAfter: Int? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code): \(message)" }
}

extension ParleyError {
    public static func badRequest(_ message: String, code: String = "bad_request") -> ParleyError {
        ParleyError(.badRequest, code: code, message)
    }
    public static func invalidField(_ field: String, _ message: String) -> ParleyError {
        ParleyError(.badRequest, code: "invalid_field", "\(field): \(message)")
    }
    public static func notFound(_ what: String) -> ParleyError {
        ParleyError(.notFound, code: "not_found", "\(what) not found")
    }
    public static let unauthenticated = ParleyError(
        .unauthenticated, code: "unauthenticated", "A valid access token is required")
    public static func forbidden(_ message: String, code: String) -> ParleyError {
        ParleyError(.forbidden, code: code, message)
    }
    public static func rule(_ code: String, _ message: String) -> ParleyError {
        ParleyError(.unprocessable, code: code, message)
    }
}


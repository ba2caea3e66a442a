import HTTPTypes
import Hummingbird

/// Headers every answer carries, and those of stored files:
/// - `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` everywhere, so a
///   browser never guesses a type and no token-bearing URL leaks as a referrer;
/// - on avatars and attachments (bytes people uploaded), `Content-Disposition: inline` with the
///   file's id as its name and `Content-Security-Policy: default-src 'none'; sandbox`, so an
///   uploaded file opened in a browser runs nothing, whatever it contains.
/// Pages (the verification page) set their own CSP, which this leaves alone.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext

    static let storedFiles = ["/v1/attachments/", "/v1/avatars/"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[.xContentTypeOptions] == nil { response.headers[.xContentTypeOptions] = "nosniff" }
        if response.headers[.referrerPolicy] == nil { response.headers[.referrerPolicy] = "no-referrer" }
        let path = request.uri.path
        if let prefix = Self.storedFiles.first(where: path.hasPrefix), response.status.code < 300 {
            let name = path.dropFirst(prefix.count).filter { $0.isLetter || $0.isNumber || $0 == "-" }
            response.headers[.contentDisposition] = "inline; filename=\"\(name)\""
            if response.headers[.contentSecurityPolicy] == nil {
                response.headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
            }
        }
        return response
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}

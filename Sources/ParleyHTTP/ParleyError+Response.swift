import Foundation
import Hummingbird
import ParleyCore

extension ParleyError.Kind {
    var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .gone: .gone
        case .tooLarge: .contentTooLarge
        case .unsupportedMedia: .unsupportedMediaType
        case .unprocessable: .unprocessableContent
        case .rateLimited: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .internalFailure: .internalServerError
        }
    }
}

extension ParleyError: ResponseGenerator {}
extension ParleyError: HTTPResponseError {
    public var status: HTTPResponse.Status { kind.status }

    /// `{"error": {"code": …, "message": …}}` (API.md conventions).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        errorResponse()
    }

    func errorResponse() -> Response {
        struct Body: Encodable {
            struct Detail: Encodable { let code: String; let message: String }
            let error: Detail
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys   // the same error is the same bytes
        let data = (try? encoder.encode(Body(error: .init(code: code, message: message)))) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if kind == .unauthenticated { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

import Foundation
import Hummingbird
import NIOCore
import ParleyCore
import ParleyProtocol

/// Reading request bodies with limits, and JSON with errors a client can act on.
enum RequestBody {
    static let jsonLimit = 64 * 1024

    /// The whole body, refusing more than `limit` bytes with 413.
    static func bytes(_ request: Request, limit: Int) async throws -> [UInt8] {
        var request = request
        do {
            let buffer = try await request.collectBody(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge(limit)
        } catch is NIOTooManyBytesError {
            throw tooLarge(limit)
        }
    }

    static func tooLarge(_ limit: Int) -> ParleyError {
        ParleyError(.tooLarge, code: "payload_too_large", "The request body is larger than \(limit) bytes")
    }

    /// Decodes a JSON object body. Malformed JSON, a missing field or a wrong type is a 400 that
    /// names the field.
    static func json<T: Decodable>(_ type: T.Type, from request: Request, limit: Int = jsonLimit) async throws -> T {
        let bytes = try await bytes(request, limit: limit)
        return try decode(type, from: bytes)
    }

    /// Like `json`, but an empty body decodes as `{}` (for bodies whose every field is optional).
    static func optionalJSON<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let bytes = try await bytes(request, limit: jsonLimit)
        return try decode(type, from: bytes.allSatisfy { $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 } ? Array("{}".utf8) : bytes)
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        if bytes.isEmpty { throw ParleyError.badRequest("A JSON body is required", code: "invalid_json") }
        if NulEscape.isIn(bytes) { throw ParleyError.badRequest(NulEscape.refused, code: "invalid_json") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw ParleyError.decoding(error)
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError.badRequest("The body is not valid JSON", code: "invalid_json")
        }
    }
}

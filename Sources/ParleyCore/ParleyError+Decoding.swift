/// Decoding failures as errors a client can act on: which field is missing or of the wrong type.
extension ParleyError {
    public static func decoding(_ error: DecodingError) -> ParleyError {
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return ParleyError(.badRequest, code: "missing_field", "\(path(context, key)) is required")
        case .valueNotFound(_, let context):
            if context.codingPath.isEmpty {   // the body is `null`
                return ParleyError.badRequest("The body must be a JSON object", code: "invalid_json")
            }
            return ParleyError(.badRequest, code: "missing_field", "\(path(context)) is required")
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty {
                return ParleyError.badRequest("The body must be a JSON object", code: "invalid_json")
            }
            return ParleyError.invalidField(path(context), "expected \(typeName(type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ParleyError.badRequest("The body is not valid JSON", code: "invalid_json")
            }
            return ParleyError.invalidField(path(context), context.debugDescription)
        @unknown default:
            return ParleyError.badRequest("The body could not be read", code: "invalid_json")
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}

/// A command frame's `id`: a string or a number, echoed in `replyTo` as given.
public enum FrameID: Sendable, Equatable, Codable {
    case string(String)
    case integer(Int64)
    case number(Double)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let whole = try? container.decode(Int64.self) {
            self = .integer(whole)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let whole): try container.encode(whole)
        case .number(let value): try container.encode(value)
        }
    }
}

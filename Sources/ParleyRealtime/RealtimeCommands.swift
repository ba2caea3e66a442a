import Foundation
import ParleyCore

/// Who sent a command, on which device.
public struct CommandCaller: Sendable {
    public let userID: UserID
    public let sessionID: SessionID

    public init(userID: UserID, sessionID: SessionID) {
        self.userID = userID
        self.sessionID = sessionID
    }
}

/// A command handler: the command frame's bytes in (decode what you need), the reply's fields out.
public typealias RealtimeCommandHandler = @Sendable (_ caller: CommandCaller, _ frame: [UInt8]) async throws -> (any Encodable & Sendable)?

/// The commands the gateway knows, registered by the modules that serve them (chat, calls).
public struct RealtimeCommands: Sendable {
    private var handlers: [String: RealtimeCommandHandler] = [:]

    public init() {}

    public mutating func register(_ type: String, _ handler: @escaping RealtimeCommandHandler) {
        handlers[type] = handler
    }

    public func handler(for type: String) -> RealtimeCommandHandler? { handlers[type] }

    public var types: [String] { handlers.keys.sorted() }

    /// Decodes a command body, with missing or mistyped fields as `missing_field` / `invalid_field`.
    public static func decode<T: Decodable>(_ type: T.Type, from frame: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(frame))
        } catch let error as DecodingError {
            throw ParleyError.decoding(error)
        }
    }
}

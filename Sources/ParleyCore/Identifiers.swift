import Foundation

/// A string identifier with a type of its own, so that a `UserID` is never passed where a
/// `DialogID` is expected. Ids travel as plain strings on the wire.
public protocol TypedID: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible
where RawValue == String {
    init(rawValue: String)
}

extension TypedID {
    /// A fresh random id (a lowercase UUID).
    public static func generate() -> Self { Self(rawValue: UUID().uuidString.lowercased()) }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

public struct UserID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct SessionID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct FriendRequestID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct DialogID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct MessageID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A fresh id that begins with the time it was made (UUIDv7), so ids made in a later
    /// millisecond sort after it (within one millisecond, or across a clock stepped back, they need
    /// not — nothing orders messages by id; `seq` does): the messages' primary key grows at its
    /// end instead of taking a random page each. It tells when the message was made, as its
    /// `createdAt` does to those who can read it.
    public static func generate() -> MessageID { MessageID(rawValue: TimeOrderedUUID.make()) }
}

public struct AttachmentID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct StoryID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct CallID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct QuoteID: TypedID {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

import ParleyCore

/// Who may start a conversation with a user: their friends only, or anyone (a stranger's first
/// message then waits as a message request).
public enum MessagesFrom: String, Sendable, Codable, CaseIterable {
    case friends, everyone
}

/// Who sees whether a user is online and when they were last seen.
public enum PresenceAudience: String, Sendable, Codable, CaseIterable {
    case everyone, friends, nobody
}

/// A user's privacy choices (`/v1/me/privacy`).
public struct PrivacySettings: Sendable, Equatable, Codable {
    public var messagesFrom: MessagesFrom
    public var presenceVisibleTo: PresenceAudience

    /// Until a user chooses: friends only, as before message requests existed.
    public static let standard = PrivacySettings(messagesFrom: .friends, presenceVisibleTo: .friends)

    public init(messagesFrom: MessagesFrom, presenceVisibleTo: PresenceAudience) {
        self.messagesFrom = messagesFrom
        self.presenceVisibleTo = presenceVisibleTo
    }

    /// Whether a viewer standing in `relationship` to the user sees their presence (the user
    /// themself always does; someone blocked never does).
    public func showsPresence(to relationship: Relationship, isSelf: Bool) -> Bool {
        if isSelf { return true }
        if relationship == .blocked { return false }
        switch presenceVisibleTo {
        case .everyone: return true
        case .friends: return relationship == .friend
        case .nobody: return false
        }
    }
}

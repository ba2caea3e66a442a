import ParleyCore

extension FriendService {
    public func privacy(of user: UserID) async throws -> PrivacySettings {
        try await store.privacy(of: [user])[user] ?? .standard
    }

    /// Several users' settings at once (for lists of people).
    public func privacy(of users: [UserID]) async throws -> [UserID: PrivacySettings] {
        try await store.privacy(of: users)
    }

    /// Changes the fields given; the others stay as they were.
    public func setPrivacy(of user: UserID, messagesFrom: MessagesFrom?, presenceVisibleTo: PresenceAudience?) async throws
        -> PrivacySettings
    {
        var settings = try await privacy(of: user)
        if let messagesFrom { settings.messagesFrom = messagesFrom }
        if let presenceVisibleTo { settings.presenceVisibleTo = presenceVisibleTo }
        try await store.setPrivacy(settings, of: user)
        return settings
    }
}

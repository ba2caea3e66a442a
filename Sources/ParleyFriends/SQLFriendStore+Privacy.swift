import ParleyCore
import ParleyStorage

extension SQLFriendStore {
    public func privacy(of users: [UserID]) async throws -> [UserID: PrivacySettings] {
        if users.isEmpty { return [:] }
        let rows = try await database.read { sql in
            try sql.query("""
                SELECT user_id, messages_from, presence_visible_to FROM privacy_settings WHERE user_id IN (\(sqlPlaceholders(users.count)))
                """, binding: users.map(\.rawValue.sqlValue))
        }
        var settings: [UserID: PrivacySettings] = [:]
        for row in rows {
            settings[UserID(rawValue: try row.decode(column: "user_id", as: String.self))] = PrivacySettings(
                messagesFrom: MessagesFrom(rawValue: try row.decode(column: "messages_from", as: String.self)) ?? .friends,
                presenceVisibleTo: PresenceAudience(rawValue: try row.decode(column: "presence_visible_to", as: String.self)) ?? .friends)
        }
        return settings
    }

    public func setPrivacy(_ settings: PrivacySettings, of user: UserID) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO privacy_settings (user_id, messages_from, presence_visible_to) VALUES (?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET messages_from = excluded.messages_from, presence_visible_to = excluded.presence_visible_to
                """, user.rawValue, settings.messagesFrom.rawValue, settings.presenceVisibleTo.rawValue)
        }
    }
}

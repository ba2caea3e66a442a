import Foundation
import ParleyCore
import ParleyStorage

/// Devices' push tokens, notification switches and muted dialogs, over SQL.
public struct PushStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Registers `device`'s tokens, replacing what that device had before.
    public func register(_ device: PushDevice, at now: Date) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO push_devices (session_id, user_id, alert_token, voip_token, bundle_id, environment, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (session_id) DO UPDATE SET alert_token = excluded.alert_token, voip_token = excluded.voip_token,
                  bundle_id = excluded.bundle_id, environment = excluded.environment, updated_at = excluded.updated_at
                """, device.sessionID.rawValue, device.userID.rawValue, device.alertToken, device.voipToken, device.bundleID,
                device.environment.rawValue, now.storageMillis)
        }
    }

    /// Forgets one device's tokens (`DELETE /v1/me/push`, its session ended).
    public func remove(session: SessionID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM push_devices WHERE session_id = ?", session.rawValue)
        }
    }

    /// Forgets every device of `user` (all sessions ended: a password reset).
    public func removeAll(of user: UserID) async throws {
        try await database.write { sql in
            try sql.execute("DELETE FROM push_devices WHERE user_id = ?", user.rawValue)
        }
    }

    /// Forgets a token APNs no longer takes, wherever it is registered.
    public func removeToken(_ token: String) async throws {
        try await database.write { sql in
            try sql.execute("UPDATE push_devices SET alert_token = NULL WHERE alert_token = ?", token)
            try sql.execute("UPDATE push_devices SET voip_token = NULL WHERE voip_token = ?", token)
            try sql.execute("DELETE FROM push_devices WHERE alert_token IS NULL AND voip_token IS NULL")
        }
    }

    /// The registered devices of `user` whose sessions are still live.
    public func devices(of user: UserID) async throws -> [PushDevice] {
        let rows = try await database.read { sql in
            try sql.query("""
                SELECT push_devices.session_id, alert_token, voip_token, bundle_id, environment
                FROM push_devices JOIN sessions ON sessions.id = push_devices.session_id
                WHERE push_devices.user_id = ? AND sessions.ended_at IS NULL
                """, user.rawValue)
        }
        return try rows.compactMap { row in
            guard let environment = APNsEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) else { return nil }
            return PushDevice(
                sessionID: SessionID(rawValue: try row.decode(column: "session_id", as: String.self)), userID: user,
                alertToken: try row.decode(column: "alert_token", as: String?.self),
                voipToken: try row.decode(column: "voip_token", as: String?.self),
                bundleID: try row.decode(column: "bundle_id", as: String.self), environment: environment)
        }
    }

    // MARK: Settings and mutes

    public func settings(of user: UserID) async throws -> NotificationSettings {
        try await database.read { sql in
            guard let row = try sql.first("""
                SELECT messages, friend_requests, calls, previews FROM notification_settings WHERE user_id = ?
                """, user.rawValue) else { return NotificationSettings() }
            var settings = NotificationSettings()
            settings.messages = try row.decode(column: "messages", as: Int.self) != 0
            settings.friendRequests = try row.decode(column: "friend_requests", as: Int.self) != 0
            settings.calls = try row.decode(column: "calls", as: Int.self) != 0
            settings.previews = try row.decode(column: "previews", as: Int.self) != 0
            return settings
        }
    }

    public func save(_ settings: NotificationSettings, of user: UserID) async throws {
        try await database.write { sql in
            try sql.execute("""
                INSERT INTO notification_settings (user_id, messages, friend_requests, calls, previews) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET messages = excluded.messages, friend_requests = excluded.friend_requests,
                  calls = excluded.calls, previews = excluded.previews
                """, user.rawValue, settings.messages ? 1 : 0, settings.friendRequests ? 1 : 0, settings.calls ? 1 : 0,
                settings.previews ? 1 : 0)
        }
    }

    public func setMuted(_ muted: Bool, dialog: DialogID, for user: UserID) async throws {
        try await database.write { sql in
            if muted {
                try sql.execute("INSERT INTO muted_dialogs (user_id, dialog_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                user.rawValue, dialog.rawValue)
            } else {
                try sql.execute("DELETE FROM muted_dialogs WHERE user_id = ? AND dialog_id = ?", user.rawValue, dialog.rawValue)
            }
        }
    }

    public func mutedDialogs(of user: UserID) async throws -> [DialogID] {
        try await database.read { sql in
            try sql.query("SELECT dialog_id FROM muted_dialogs WHERE user_id = ? ORDER BY dialog_id", user.rawValue)
                .map { DialogID(rawValue: try $0.decode(column: "dialog_id", as: String.self)) }
        }
    }

    public func isMuted(_ dialog: DialogID, for user: UserID) async throws -> Bool {
        try await database.read { sql in
            try sql.first("SELECT dialog_id FROM muted_dialogs WHERE user_id = ? AND dialog_id = ?", user.rawValue, dialog.rawValue) != nil
        }
    }
}

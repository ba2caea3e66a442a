import Foundation
import ParleyCore
import ParleyStorage
import SQLKit

/// Devices' push tokens, notification switches and muted dialogs, over SQL.
public struct PushStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Registers `device`'s tokens, replacing what that device had before.
    public func register(_ device: PushDevice, at now: Date) async throws {
        try await database.withConnection { sql in
            try await sql.insert(into: "push_devices")
                .columns("session_id", "user_id", "alert_token", "voip_token", "bundle_id", "environment", "updated_at")
                .values(SQLBind(device.sessionID.rawValue), SQLBind(device.userID.rawValue), SQLBind(device.alertToken),
                        SQLBind(device.voipToken), SQLBind(device.bundleID), SQLBind(device.environment.rawValue),
                        SQLBind(now.storageMillis))
                .onConflict(with: ["session_id"]) {
                    $0.set(excludedValueOf: "alert_token").set(excludedValueOf: "voip_token")
                        .set(excludedValueOf: "bundle_id").set(excludedValueOf: "environment").set(excludedValueOf: "updated_at")
                }
                .run()
        }
    }

    /// Forgets one device's tokens (`DELETE /v1/me/push`, its session ended).
    public func remove(session: SessionID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "push_devices").where("session_id", .equal, session.rawValue).run()
        }
    }

    /// Forgets every device of `user` (all sessions ended: a password reset).
    public func removeAll(of user: UserID) async throws {
        try await database.withConnection { sql in
            try await sql.delete(from: "push_devices").where("user_id", .equal, user.rawValue).run()
        }
    }

    /// Forgets a token APNs no longer takes, wherever it is registered.
    public func removeToken(_ token: String) async throws {
        try await database.transaction { sql in
            try await sql.update("push_devices").set("alert_token", to: SQLLiteral.null).where("alert_token", .equal, token).run()
            try await sql.update("push_devices").set("voip_token", to: SQLLiteral.null).where("voip_token", .equal, token).run()
            try await sql.delete(from: "push_devices").where("alert_token", .is, SQLLiteral.null)
                .where("voip_token", .is, SQLLiteral.null).run()
        }
    }

    /// The registered devices of `user` whose sessions are still live.
    public func devices(of user: UserID) async throws -> [PushDevice] {
        let rows = try await database.withConnection { sql in
            try await sql.select()
                .columns(SQLColumn("session_id", table: "push_devices"), SQLColumn("alert_token"), SQLColumn("voip_token"),
                         SQLColumn("bundle_id"), SQLColumn("environment"))
                .from("push_devices")
                .join("sessions", on: SQLColumn("id", table: "sessions"), .equal, SQLColumn("session_id", table: "push_devices"))
                .where(SQLColumn("user_id", table: "push_devices"), .equal, SQLBind(user.rawValue))
                .where(SQLColumn("ended_at", table: "sessions"), .is, SQLLiteral.null)
                .all()
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
        try await database.withConnection { sql in
            guard let row = try await sql.select().columns("messages", "friend_requests", "calls", "previews")
                .from("notification_settings").where("user_id", .equal, user.rawValue).first() else { return NotificationSettings() }
            var settings = NotificationSettings()
            settings.messages = try row.decode(column: "messages", as: Int.self) != 0
            settings.friendRequests = try row.decode(column: "friend_requests", as: Int.self) != 0
            settings.calls = try row.decode(column: "calls", as: Int.self) != 0
            settings.previews = try row.decode(column: "previews", as: Int.self) != 0
            return settings
        }
    }

    public func save(_ settings: NotificationSettings, of user: UserID) async throws {
        try await database.withConnection { sql in
            try await sql.insert(into: "notification_settings")
                .columns("user_id", "messages", "friend_requests", "calls", "previews")
                .values(SQLBind(user.rawValue), SQLBind(settings.messages ? 1 : 0), SQLBind(settings.friendRequests ? 1 : 0),
                        SQLBind(settings.calls ? 1 : 0), SQLBind(settings.previews ? 1 : 0))
                .onConflict(with: ["user_id"]) {
                    $0.set(excludedValueOf: "messages").set(excludedValueOf: "friend_requests")
                        .set(excludedValueOf: "calls").set(excludedValueOf: "previews")
                }
                .run()
        }
    }

    public func setMuted(_ muted: Bool, dialog: DialogID, for user: UserID) async throws {
        try await database.withConnection { sql in
            if muted {
                try await sql.insert(into: "muted_dialogs").columns("user_id", "dialog_id")
                    .values(SQLBind(user.rawValue), SQLBind(dialog.rawValue)).ignoringConflicts().run()
            } else {
                try await sql.delete(from: "muted_dialogs").where("user_id", .equal, user.rawValue)
                    .where("dialog_id", .equal, dialog.rawValue).run()
            }
        }
    }

    public func mutedDialogs(of user: UserID) async throws -> [DialogID] {
        try await database.withConnection { sql in
            try await sql.select().column("dialog_id").from("muted_dialogs").where("user_id", .equal, user.rawValue)
                .orderBy("dialog_id").all(decodingColumn: "dialog_id", as: String.self).map(DialogID.init(rawValue:))
        }
    }

    public func isMuted(_ dialog: DialogID, for user: UserID) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.select().column("dialog_id").from("muted_dialogs").where("user_id", .equal, user.rawValue)
                .where("dialog_id", .equal, dialog.rawValue).first() != nil
        }
    }
}

import Foundation
import ParleyCore
import ParleyStorage
import SQLKit

extension SQLAccountStore {
    public func createSession(_ session: SessionRecord, refreshToken: RefreshTokenRecord) async throws {
        try await database.transaction { sql in
            try await sql.insert(into: "sessions")
                .columns("id", "user_id", "device_name", "created_at", "ended_at", "end_reason")
                .values(
                    SQLBind(session.id.rawValue), SQLBind(session.userID.rawValue), SQLBind(session.deviceName),
                    SQLBind(session.createdAt.storageMillis), SQLBind(session.endedAt?.storageMillis),
                    SQLBind(session.endReason)
                ).run()
            try await Self.insert(refreshToken, sql)
        }
    }

    public func session(id: SessionID) async throws -> SessionRecord? {
        try await database.withConnection { sql in
            try await sql.select().columns("id", "user_id", "device_name", "created_at", "ended_at", "end_reason")
                .from("sessions").where("id", .equal, id.rawValue).first()
                .map { row in
                    SessionRecord(
                        id: SessionID(rawValue: try row.decode(column: "id", as: String.self)),
                        userID: UserID(rawValue: try row.decode(column: "user_id", as: String.self)),
                        deviceName: try row.decode(column: "device_name", as: String.self),
                        createdAt: Date(storageMillis: try row.decode(column: "created_at", as: Int64.self)),
                        endedAt: try row.decode(column: "ended_at", as: Int64?.self).map(Date.init(storageMillis:)),
                        endReason: try row.decode(column: "end_reason", as: String?.self)
                    )
                }
        }
    }

    public func rotateRefreshToken(
        digest: String, at now: Date, replacement: @Sendable (RefreshTokenRecord) -> RefreshTokenRecord
    ) async throws -> RefreshRotation {
        try await database.transaction { sql in
            guard let row = try await sql.select().columns("digest", "session_id", "issued_at", "expires_at", "spent_at")
                .from("refresh_tokens").where("digest", .equal, digest).first()
            else { return .unknown }
            let old = RefreshTokenRecord(
                digest: try row.decode(column: "digest", as: String.self),
                sessionID: SessionID(rawValue: try row.decode(column: "session_id", as: String.self)),
                issuedAt: Date(storageMillis: try row.decode(column: "issued_at", as: Int64.self)),
                expiresAt: Date(storageMillis: try row.decode(column: "expires_at", as: Int64.self)),
                spentAt: try row.decode(column: "spent_at", as: Int64?.self).map(Date.init(storageMillis:))
            )
            if old.spentAt != nil { return .reused(old) }
            if old.expiresAt <= now { return .expired(old) }
            let new = replacement(old)
            try await sql.update("refresh_tokens").set("spent_at", to: now.storageMillis)
                .where("digest", .equal, digest).run()
            try await Self.insert(new, sql)
            return .rotated(old: old, new: new)
        }
    }

    public func sessionID(refreshTokenDigest digest: String) async throws -> SessionID? {
        try await database.withConnection { sql in
            try await sql.select().column("session_id").from("refresh_tokens").where("digest", .equal, digest)
                .first(decodingColumn: "session_id", as: String.self).map(SessionID.init(rawValue:))
        }
    }

    public func endSession(id: SessionID, reason: String, at: Date) async throws {
        try await database.withConnection { sql in
            try await sql.update("sessions").set("ended_at", to: at.storageMillis).set("end_reason", to: reason)
                .where("id", .equal, id.rawValue).where("ended_at", .is, SQLLiteral.null).run()
        }
    }

    public func endAllSessions(userID: UserID, reason: String, at: Date) async throws {
        try await database.withConnection { sql in
            try await sql.update("sessions").set("ended_at", to: at.storageMillis).set("end_reason", to: reason)
                .where("user_id", .equal, userID.rawValue).where("ended_at", .is, SQLLiteral.null).run()
        }
    }

    public func insertEmailToken(_ token: EmailTokenRecord, replacingPurposeTokens: Bool) async throws {
        try await database.transaction { sql in
            if replacingPurposeTokens {
                try await sql.delete(from: "email_tokens").where("user_id", .equal, token.userID.rawValue)
                    .where("purpose", .equal, token.purpose.rawValue).run()
            }
            try await sql.insert(into: "email_tokens").columns("digest", "user_id", "purpose", "expires_at", "used_at")
                .values(
                    SQLBind(token.digest), SQLBind(token.userID.rawValue), SQLBind(token.purpose.rawValue),
                    SQLBind(token.expiresAt.storageMillis), SQLBind(token.usedAt?.storageMillis)
                ).run()
        }
    }

    public func consumeEmailToken(digest: String, purpose: EmailTokenRecord.Purpose, at now: Date) async throws -> EmailTokenRecord? {
        try await database.transaction { sql in
            guard let row = try await sql.select().columns("digest", "user_id", "purpose", "expires_at", "used_at")
                .from("email_tokens").where("digest", .equal, digest).where("purpose", .equal, purpose.rawValue).first()
            else { return nil }
            let token = EmailTokenRecord(
                digest: digest,
                userID: UserID(rawValue: try row.decode(column: "user_id", as: String.self)),
                purpose: purpose,
                expiresAt: Date(storageMillis: try row.decode(column: "expires_at", as: Int64.self)),
                usedAt: try row.decode(column: "used_at", as: Int64?.self).map(Date.init(storageMillis:))
            )
            guard token.usedAt == nil, token.expiresAt > now else { return nil }
            try await sql.update("email_tokens").set("used_at", to: now.storageMillis).where("digest", .equal, digest).run()
            return token
        }
    }

    static func insert(_ token: RefreshTokenRecord, _ sql: any SQLDatabase) async throws {
        try await sql.insert(into: "refresh_tokens").columns("digest", "session_id", "issued_at", "expires_at", "spent_at")
            .values(
                SQLBind(token.digest), SQLBind(token.sessionID.rawValue), SQLBind(token.issuedAt.storageMillis),
                SQLBind(token.expiresAt.storageMillis), SQLBind(token.spentAt?.storageMillis)
            ).run()
    }
}

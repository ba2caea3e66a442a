import Foundation
import ParleyCore

/// A Parley account as stored. What clients see of it is decided at the edge
/// (e-mail only to its owner, never the password hash).
public struct UserRecord: Sendable, Equatable {
    public var id: UserID
    public var email: String
    public var name: String
    public var status: String
    public var passwordHash: String
    public var dateOfBirth: String
    public var avatarHash: String?
    public var emailVerifiedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UserID, email: String, name: String, status: String, passwordHash: String, dateOfBirth: String,
        avatarHash: String?, emailVerifiedAt: Date?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.status = status
        self.passwordHash = passwordHash
        self.dateOfBirth = dateOfBirth
        self.avatarHash = avatarHash
        self.emailVerifiedAt = emailVerifiedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var isVerified: Bool { emailVerifiedAt != nil }
}

/// One signed-in device: its refresh tokens rotate, and ending it ends them all.
public struct SessionRecord: Sendable, Equatable {
    public var id: SessionID
    public var userID: UserID
    public var deviceName: String
    public var createdAt: Date
    public var endedAt: Date?
    public var endReason: String?

    public init(id: SessionID, userID: UserID, deviceName: String, createdAt: Date, endedAt: Date? = nil, endReason: String? = nil) {
        self.id = id
        self.userID = userID
        self.deviceName = deviceName
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.endReason = endReason
    }

    public var isActive: Bool { endedAt == nil }
}

/// A refresh token, known only by its digest.
public struct RefreshTokenRecord: Sendable, Equatable {
    public var digest: String
    public var sessionID: SessionID
    public var issuedAt: Date
    public var expiresAt: Date
    public var spentAt: Date?

    public init(digest: String, sessionID: SessionID, issuedAt: Date, expiresAt: Date, spentAt: Date? = nil) {
        self.digest = digest
        self.sessionID = sessionID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.spentAt = spentAt
    }
}

/// A single-use token mailed to the owner of an address.
public struct EmailTokenRecord: Sendable, Equatable {
    public enum Purpose: String, Sendable { case verify, reset }

    public var digest: String
    public var userID: UserID
    public var purpose: Purpose
    public var expiresAt: Date
    public var usedAt: Date?

    public init(digest: String, userID: UserID, purpose: Purpose, expiresAt: Date, usedAt: Date? = nil) {
        self.digest = digest
        self.userID = userID
        self.purpose = purpose
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

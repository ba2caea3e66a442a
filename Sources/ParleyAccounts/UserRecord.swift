import Foundation
import ParleyCore

/// A Parley account as stored. What clients see of it is decided at the edge
/// (e-mail only to its owner, never the password hash).
public struct UserRecord: Sendable, Equatable {
    public var id: UserID
    /// Nil for an account signed up by phone number.
    public var email: String?
    /// E.164; nil for an account signed up by e-mail.
    public var phoneNumber: String?
    public var name: String
    public var status: String
    public var passwordHash: String
    public var dateOfBirth: String
    public var avatarHash: String?
    public var emailVerifiedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// When the user's last realtime connection closed; nil if none ever did.
    public var lastSeenAt: Date?

    public init(
        id: UserID, email: String?, phoneNumber: String? = nil, name: String, status: String, passwordHash: String, dateOfBirth: String,
        avatarHash: String?, emailVerifiedAt: Date?, createdAt: Date, updatedAt: Date, lastSeenAt: Date? = nil
    ) {
        self.lastSeenAt = lastSeenAt
        self.id = id
        self.email = email
        self.phoneNumber = phoneNumber
        self.name = name
        self.status = status
        self.passwordHash = passwordHash
        self.dateOfBirth = dateOfBirth
        self.avatarHash = avatarHash
        self.emailVerifiedAt = emailVerifiedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the account's sign-in identity was proven: the mailed link followed, or (set at
    /// sign-up, which needs it) the SMS code entered.
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

/// A code texted to a phone number to prove it, known only by its digest. Single use, short-lived,
/// and locked after `maxAttempts` wrong guesses.
public struct PhoneCodeRecord: Sendable, Equatable {
    public var phoneNumber: String
    public var digest: String
    public var expiresAt: Date
    public var attempts: Int
    public var usedAt: Date?

    public init(phoneNumber: String, digest: String, expiresAt: Date, attempts: Int = 0, usedAt: Date? = nil) {
        self.phoneNumber = phoneNumber
        self.digest = digest
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.usedAt = usedAt
    }
}

/// What became of a code presented for a number.
public enum PhoneCodeCheck: Sendable, Equatable {
    /// Right, live and unlocked: now spent.
    case accepted
    /// No live code for the number (never sent, expired or already used).
    case unknown
    /// Wrong; it counted as one attempt (`locked` when that was the last one allowed).
    case wrong(locked: Bool)
    /// Too many wrong attempts before: refused even when right.
    case locked
}

/// An e-mail address a user asked to move to, waiting for the code mailed there.
public struct EmailChangeRecord: Sendable, Equatable {
    public var userID: UserID
    public var newEmail: String
    public var digest: String
    public var expiresAt: Date

    public init(userID: UserID, newEmail: String, digest: String, expiresAt: Date) {
        self.userID = userID
        self.newEmail = newEmail
        self.digest = digest
        self.expiresAt = expiresAt
    }
}

/// What became of a code presented for an e-mail change.
public enum EmailChangeOutcome: Sendable, Equatable {
    case changed(from: String, to: String)
    /// Right, but another account has the address now.
    case taken
    case code(PhoneCodeCheck)
}

import Foundation
import ParleyCore

/// What Accounts needs from storage. `SQLAccountStore` serves it over SQLite or PostgreSQL.
public protocol AccountStore: Sendable {
    // Users
    /// Inserts a user; throws `email_taken` when the normalised address is already registered,
    /// `phone_taken` when its phone number is.
    func insertUser(_ user: UserRecord) async throws
    func user(id: UserID) async throws -> UserRecord?
    /// The account signed up with this e-mail address (never one signed up by phone).
    func user(email: String) async throws -> UserRecord?
    /// The account signed up with this E.164 number.
    func user(phoneNumber: String) async throws -> UserRecord?
    func users(ids: [UserID]) async throws -> [UserRecord]
    func updateProfile(id: UserID, name: String?, status: String?, at: Date) async throws
    /// Records when the user's last realtime connection closed.
    func markSeen(id: UserID, at: Date) async throws
    /// Records the address a user asked to move to, replacing any earlier one that waits.
    func insertEmailChange(_ change: EmailChangeRecord) async throws
    /// Checks a code for the user's waiting change and, when right, moves the account to the new
    /// address (unless someone took it meanwhile) in the same transaction.
    func confirmEmailChange(userID: UserID, digest: String, at: Date, maxAttempts: Int) async throws -> EmailChangeOutcome
    func setAvatar(id: UserID, hash: String, at: Date) async throws
    func setPassword(id: UserID, hash: String, at: Date) async throws
    func markVerified(id: UserID, at: Date) async throws
    /// Deletes the user and everything that cascades from it.
    func deleteUser(id: UserID) async throws
    /// Deletes accounts never verified that were registered before `cutoff`; how many.
    func deleteUnverified(registeredBefore cutoff: Date) async throws -> Int
    /// How many users show this avatar (content-addressed files are shared).
    func avatarReferences(hash: String) async throws -> Int
    /// Verified users whose name contains `query` or whose e-mail is `query` (case-insensitive), ordered by name
    /// then id, after `cursor`, never `viewer` or anyone in `excluding`.
    func searchUsers(query: String, viewer: UserID, excluding: Set<UserID>, after cursor: UserSearchCursor?, limit: Int) async throws -> [UserRecord]

    // Sessions
    func createSession(_ session: SessionRecord, refreshToken: RefreshTokenRecord) async throws
    func session(id: SessionID) async throws -> SessionRecord?
    /// Atomically: looks the token up; if it is live, marks it spent and stores `replacement`.
    func rotateRefreshToken(digest: String, at: Date, replacement: @escaping @Sendable (RefreshTokenRecord) -> RefreshTokenRecord) async throws -> RefreshRotation
    /// Deletes refresh, e-mail and phone tokens that expired before `cutoff`; returns how many.
    func deleteExpiredTokens(before cutoff: Date) async throws -> Int
    /// The session a refresh token (spent or not) belongs to.
    func sessionID(refreshTokenDigest digest: String) async throws -> SessionID?
    /// The session a refresh token belongs to, and whether the token is spent.
    func refreshTokenSession(digest: String) async throws -> (session: SessionID, spent: Bool)?
    func endSession(id: SessionID, reason: String, at: Date) async throws
    func endAllSessions(userID: UserID, reason: String, at: Date) async throws

    // E-mail tokens
    func insertEmailToken(_ token: EmailTokenRecord, replacingPurposeTokens: Bool) async throws
    /// Atomically marks the token used and returns it, if it exists, is unused and unexpired.
    func consumeEmailToken(digest: String, purpose: EmailTokenRecord.Purpose, at: Date) async throws -> EmailTokenRecord?

    // Phone codes
    /// Stores a code for its number, replacing the one sent before.
    func insertPhoneCode(_ code: PhoneCodeRecord) async throws
    /// Atomically checks a code for a number: spends it when right, counts an attempt when wrong,
    /// refuses it once `maxAttempts` wrong ones were made.
    func checkPhoneCode(phoneNumber: String, digest: String, at: Date, maxAttempts: Int) async throws -> PhoneCodeCheck
}

/// Where a refresh token stood when it was presented.
public enum RefreshRotation: Sendable, Equatable {
    case rotated(old: RefreshTokenRecord, new: RefreshTokenRecord)
    case unknown
    case expired(RefreshTokenRecord)
    /// Already spent: someone replayed it. The session must end.
    case reused(RefreshTokenRecord)
}

/// Keyset position in a search: the last row's sort key.
public struct UserSearchCursor: Sendable, Equatable {
    public var nameKey: String
    public var id: UserID

    public init(nameKey: String, id: UserID) {
        self.nameKey = nameKey
        self.id = id
    }

    public var encoded: String { Base64URL.encode(Array("\(nameKey)\u{0}\(id.rawValue)".utf8)) }

    public init?(encoded: String) {
        guard let bytes = Base64URL.decode(encoded) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: "\u{0}", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        nameKey = String(parts[0])
        id = UserID(rawValue: String(parts[1]))
    }
}

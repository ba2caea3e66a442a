import Foundation
import ParleyCore

/// What a login or a refresh hands to the device.
public struct SessionGrant: Sendable {
    public let accessToken: String
    public let refreshToken: String
    public let expiresIn: Int
    public let user: UserRecord
    public let sessionID: SessionID
}

extension AccountService {
    /// Checks the password, then opens a session for this device.
    public func login(email: String, password: String, deviceName: String?, clientAddress: String?) async throws -> SessionGrant {
        let email = AccountRules.normalizeEmail(email)
        return try await login(accountKey: "account:" + email, lookup: { try await self.store.user(email: email) },
                               password: password, deviceName: deviceName, clientAddress: clientAddress)
    }

    /// Number and password, beside e-mail sign-in: the same limits, tokens and sessions. A number
    /// that cannot be read is refused like an unknown one (`invalid_credentials`).
    public func login(phoneNumber: String, password: String, deviceName: String?, clientAddress: String?) async throws -> SessionGrant {
        let number = PhoneNumber(phoneNumber, defaultCountryCode: settings.defaultCountryCode)?.e164
        return try await login(accountKey: "phone:" + (number ?? phoneNumber), lookup: { [store] in
            guard let number else { return nil }
            return try await store.user(phoneNumber: number)
        }, password: password, deviceName: deviceName, clientAddress: clientAddress)
    }

    func login(
        accountKey: String, lookup: @Sendable () async throws -> UserRecord?, password: String, deviceName: String?, clientAddress: String?
    ) async throws -> SessionGrant {
        let now = clock.now()
        let keys = PasswordGuessKeys(account: accountKey, clientAddress: clientAddress)
        try await admitPasswordAttempt(keys, now: now, what: "login")
        guard let user = try await lookup() else {
            await hasher.burnTime(password)
            try await countWrongPassword(keys, now: now)
            throw AccountErrors.invalidCredentials
        }
        guard try await hasher.verify(password, hash: user.passwordHash) else {
            try await countWrongPassword(keys, now: now)
            throw AccountErrors.invalidCredentials
        }
        try await countRightPassword(keys)
        guard user.isVerified else { throw AccountErrors.emailNotVerified }
        let grant = try await openSession(user: user, deviceName: deviceName)
        logger.info("logged in", metadata: ["user": "\(user.id)", "session": "\(grant.sessionID)"])
        return grant
    }

    /// A new session for a user already known to be who they say: a device, a refresh token, an
    /// access token.
    func openSession(user: UserRecord, deviceName: String?) async throws -> SessionGrant {
        let now = clock.now()
        let session = SessionRecord(
            id: .generate(), userID: user.id, deviceName: Self.cleanDeviceName(deviceName), createdAt: now)
        let refresh = SecretToken.generate()
        try await store.createSession(session, refreshToken: RefreshTokenRecord(
            digest: refresh.digest, sessionID: session.id, issuedAt: now,
            expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime)))
        return try await grant(user: user, session: session.id, refresh: refresh)
    }

    /// Trades a live refresh token for a new pair. A spent token presented again means it was
    /// copied: the whole session ends (RFC 9700 §4.14.2, refresh token rotation).
    public func refresh(refreshToken: String) async throws -> SessionGrant {
        let now = clock.now()
        let fresh = SecretToken.generate()
        let lifetime = settings.refreshTokenLifetime
        let digest = SecretToken.digest(of: refreshToken)
        // Only a live token's turn counts (and is refused past the rate): a spent one presented
        // again still ends its session below — else whoever holds a copy could spend the rate
        // and keep the device's replay from being told.
        if let token = try await store.refreshTokenSession(digest: digest), !token.spent {
            try await refreshesPerSession.admitting(token.session.rawValue, now: now)
        }
        let rotation = try await store.rotateRefreshToken(digest: digest, at: now) { old in
            RefreshTokenRecord(digest: fresh.digest, sessionID: old.sessionID, issuedAt: now, expiresAt: now.addingTimeInterval(lifetime))
        }
        switch rotation {
        case .unknown, .expired:
            throw AccountErrors.invalidRefreshToken
        case .reused(let old):
            try await store.endSession(id: old.sessionID, reason: "refresh_token_reused", at: now)
            sessionsEnded(.one(old.sessionID))
            logger.warning("refresh token reused; session ended", metadata: ["session": "\(old.sessionID)"])
            throw AccountErrors.refreshTokenReused
        case .rotated(_, let new):
            guard let session = try await store.session(id: new.sessionID), session.isActive,
                  let user = try await store.user(id: session.userID)
            else { throw AccountErrors.sessionEnded }
            return try await grant(user: user, session: session.id, refresh: fresh)
        }
    }

    /// Ends one session: the one an access token names, or the one a refresh token belongs to.
    /// Returns false when neither names a session.
    public func logout(principal: Principal?, refreshToken: String?) async throws -> Bool {
        let now = clock.now()
        if let principal {
            try await store.endSession(id: principal.sessionID, reason: "logout", at: now)
            sessionsEnded(.one(principal.sessionID))
            return true
        }
        if let refreshToken, let session = try await store.sessionID(refreshTokenDigest: SecretToken.digest(of: refreshToken)) {
            try await store.endSession(id: session, reason: "logout", at: now)
            sessionsEnded(.one(session))
            return true
        }
        return false
    }

    /// The principal behind an access token, if its session is still open.
    public func authenticate(accessToken: String) async throws -> Principal {
        guard let principal = await tokens.verify(accessToken) else { throw ParleyError.unauthenticated }
        guard let session = try await store.session(id: principal.sessionID), session.isActive,
              session.userID == principal.userID
        else { throw AccountErrors.sessionEnded }
        return principal
    }

    /// Throws `session_ended` once the principal's session has ended (long-lived sockets ask this).
    public func checkSession(_ principal: Principal) async throws -> Principal {
        guard let session = try await store.session(id: principal.sessionID), session.isActive else {
            throw AccountErrors.sessionEnded
        }
        return principal
    }

    func grant(user: UserRecord, session: SessionID, refresh: SecretToken) async throws -> SessionGrant {
        let access = try await tokens.issue(for: Principal(userID: user.id, sessionID: session))
        return SessionGrant(
            accessToken: access, refreshToken: refresh.value, expiresIn: Int(tokens.lifetime), user: user, sessionID: session)
    }

    static func cleanDeviceName(_ name: String?) -> String {
        let trimmed = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "unnamed device" : String(trimmed.prefix(64))
    }
}

/// Which sessions just ended.
public enum SessionsEnded: Sendable, Equatable {
    case one(SessionID)
    case allOf(UserID)
}

extension AccountService {
    /// Calls `action` whenever sessions end, after they are marked ended in the store.
    public func onSessionsEnded(_ action: @escaping @Sendable (SessionsEnded) -> Void) {
        sessionEndObservers.withLock { $0.append(action) }
    }

    func sessionsEnded(_ ended: SessionsEnded) {
        for observer in sessionEndObservers.withLock({ $0 }) { observer(ended) }
    }
}

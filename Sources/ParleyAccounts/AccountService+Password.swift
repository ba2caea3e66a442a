import Foundation
import ParleyCore

extension AccountService {
    /// Mails a reset code if the address has an account. Answers the same either way, at once.
    public func requestPasswordReset(email: String) async {
        let email = AccountRules.normalizeEmail(email)
        Task { [self] in
            guard let user = try? await store.user(email: email) else { return }
            let token = SecretToken.generate()
            do {
                try await store.insertEmailToken(
                    EmailTokenRecord(digest: token.digest, userID: user.id, purpose: .reset,
                                     expiresAt: clock.now().addingTimeInterval(settings.resetTokenLifetime)),
                    replacingPurposeTokens: true)
            } catch {
                logger.error("reset token not stored", metadata: ["error": "\(error)"])
                return
            }
            let link = settings.passwordResetLink.replacingOccurrences(of: "{token}", with: token.value)
            let browserLink = settings.browserPasswordResetLink?.replacingOccurrences(of: "{token}", with: token.value)
            deliver(AccountMail.passwordReset(to: user, token: token.value, link: link, browserLink: browserLink == link ? nil : browserLink),
                    kind: "password_reset")
        }
    }

    /// Sets a new password from a mailed token and ends every session of that user.
    /// Following the link also proves the address, so an unverified account becomes verified.
    public func confirmPasswordReset(token: String, newPassword: String) async throws {
        guard AccountRules.isAcceptablePassword(newPassword) else { throw AccountErrors.weakPassword }
        let now = clock.now()
        guard let record = try await store.consumeEmailToken(digest: SecretToken.digest(of: token), purpose: .reset, at: now)
        else { throw AccountErrors.invalidToken }
        try await store.setPassword(id: record.userID, hash: try await hasher.hash(newPassword), at: now)
        try await store.markVerified(id: record.userID, at: now)
        try await store.endAllSessions(userID: record.userID, reason: "password_reset", at: now)
        sessionsEnded(.allOf(record.userID))
        logger.info("password reset; all sessions ended", metadata: ["user": "\(record.userID)"])
    }
}

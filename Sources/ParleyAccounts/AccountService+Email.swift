import Crypto
import Foundation
import ParleyCore

/// Moving an account to another e-mail address: the new address proves itself with a code mailed
/// to it before it counts; the old one is told once it has changed.
extension AccountService {
    /// Checks the password and the new address, then mails a six-digit code to the new address.
    /// Answers the normalised address and how long the code lives. Phone accounts have no
    /// address to change. Wrong passwords count as wrong logins do (`clientAddress` as there).
    public func requestEmailChange(
        id: UserID, newEmail: String, password: String, clientAddress: String? = nil
    ) async throws -> (email: String, lifetime: Int) {
        let user = try await user(id: id)
        guard user.phoneNumber == nil, let current = user.email else { throw AccountErrors.emailNotUsed }
        try await reauthenticate(user, password: password, clientAddress: clientAddress, what: "email_change")
        let email = AccountRules.normalizeEmail(newEmail)
        guard AccountRules.isValidEmail(email) else { throw AccountErrors.invalidEmail }
        guard email != current else { throw AccountErrors.sameEmail }
        if try await store.user(email: email) != nil { throw AccountErrors.emailTaken }
        let code = Self.newPhoneCode()
        let lifetime = settings.emailChangeCodeLifetime
        try await store.insertEmailChange(EmailChangeRecord(
            userID: id, newEmail: email, digest: Self.emailCodeDigest(code, user: id), expiresAt: clock.now().addingTimeInterval(lifetime)))
        deliver(AccountMail.emailChangeCode(name: user.name, to: email, code: code, minutes: max(Int(lifetime / 60), 1)), kind: "email_change")
        logger.info("e-mail change asked", metadata: ["user": "\(id)"])
        return (email, Int(lifetime))
    }

    /// The code from the new address: the account moves there (it counts as verified), and the
    /// old address is told. Wrong codes count towards a lock, as texted codes do.
    public func confirmEmailChange(id: UserID, code: String) async throws -> UserRecord {
        let code = code.filter { !$0.isWhitespace }
        switch try await store.confirmEmailChange(userID: id, digest: Self.emailCodeDigest(code, user: id), at: clock.now(),
                                                  maxAttempts: settings.phoneCodeAttempts) {
        case .changed(let old, let new):
            let user = try await user(id: id)
            deliver(AccountMail.emailChanged(name: user.name, to: old, newEmail: new), kind: "email_changed")
            logger.info("e-mail changed", metadata: ["user": "\(id)"])
            return user
        case .taken: throw AccountErrors.emailTaken
        case .code(.locked): throw AccountErrors.codeLocked
        case .code: throw AccountErrors.invalidCode
        }
    }

    /// Codes are kept as a digest bound to their user.
    static func emailCodeDigest(_ code: String, user: UserID) -> String {
        SHA256.hash(data: Data("email:\(user.rawValue):\(code)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

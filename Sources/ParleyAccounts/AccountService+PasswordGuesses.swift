import Foundation
import ParleyCore

/// Where a password is typed, the keys its attempts count under: the account (as login names it),
/// the client address, and the two together.
struct PasswordGuessKeys {
    let account: String
    let clientAddress: String?
    var address: String { AddressKey.of(clientAddress) }
    var pair: String { account + "|" + address }
}

/// One budget of guesses per account, wherever the password is typed: logging in, changing the
/// e-mail address, deleting the account. A stolen access token buys no more guesses than the
/// login form does, and no more bcrypt work: the limits are checked before the hash is.
extension AccountService {
    /// Throws `rate_limited` before any bcrypt work when the address has made too many attempts
    /// or the account has had too many wrong guesses (from this address, or from everywhere);
    /// otherwise counts the attempt against the address.
    func admitPasswordAttempt(_ keys: PasswordGuessKeys, now: Date, what: String) async throws {
        // Wrong guesses lock an account only for the address they came from (and, past a much
        // higher bound, for guessing spread over many addresses): the owner elsewhere gets in.
        if let wait = try await firstRetryAfter(
            [(attemptsPerAddress, keys.address), (failedLoginsPerAccountAndAddress, keys.pair), (failedLoginsPerAccount, keys.account)],
            now: now) {
            logger.notice("password attempts rate limited", metadata: ["attempt": "\(what)", "address": "\(keys.clientAddress ?? "-")"])
            throw AccountErrors.rateLimited(retryAfter: wait)
        }
        try await attemptsPerAddress.record(keys.address, now: now)
    }

    func countWrongPassword(_ keys: PasswordGuessKeys, now: Date) async throws {
        try await failedLoginsPerAccountAndAddress.record(keys.pair, now: now)
        try await failedLoginsPerAccount.record(keys.account, now: now)
    }

    /// The right password clears this address's wrong guesses; those from everywhere age out.
    func countRightPassword(_ keys: PasswordGuessKeys) async throws {
        try await failedLoginsPerAccountAndAddress.reset(keys.pair)
    }

    /// Checks a signed-in user's password again before something that cannot be undone (a new
    /// e-mail address, deleting the account), within the login's limits: `wrong_password`, or
    /// `rate_limited` with the wait while too many guesses have been made.
    func reauthenticate(_ user: UserRecord, password: String, clientAddress: String?, what: String) async throws {
        let keys = PasswordGuessKeys(account: Self.loginKey(of: user), clientAddress: clientAddress)
        let now = clock.now()
        try await admitPasswordAttempt(keys, now: now, what: what)
        guard try await hasher.verify(password, hash: user.passwordHash) else {
            try await countWrongPassword(keys, now: now)
            throw AccountErrors.wrongPassword
        }
        try await countRightPassword(keys)
    }

    /// The key login counts this account's guesses under: its number or its address, as typed
    /// into the login form (once normalised).
    static func loginKey(of user: UserRecord) -> String {
        if let number = user.phoneNumber { return "phone:" + number }
        return "account:" + (user.email ?? user.id.rawValue)
    }
}

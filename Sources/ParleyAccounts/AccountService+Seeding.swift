import Foundation
import ParleyCore

/// Accounts created by an operator, already verified: no mail, no link to follow. For load runs
/// and test installations; the HTTP edge offers it only behind the admin token.
extension AccountService {
    /// One account to create.
    public struct SeedAccount: Sendable, Equatable {
        public var name: String
        public var email: String
        public var password: String

        public init(name: String, email: String, password: String) {
            self.name = name
            self.email = email
            self.password = password
        }

        /// `count` accounts named `<prefix> <i>` with addresses `<prefix><i>@<domain>` (lowercased),
        /// `i` from 0, all with one password.
        public static func numbered(count: Int, namePrefix: String, emailDomain: String, password: String) throws -> [SeedAccount] {
            try requireBatchSize(count)
            return (0..<count).map { i in
                SeedAccount(name: "\(namePrefix) \(i)", email: "\(namePrefix)\(i)@\(emailDomain)".lowercased(), password: password)
            }
        }
    }

    /// At most this many accounts per call.
    public static let maxSeedBatch = 10_000
    /// bcrypt is the slow part (about a quarter second each at cost 12), so a call takes at most
    /// this many different passwords.
    public static let maxSeedPasswords = 100
    /// Registration asks for a birth date; seeded accounts are all of age.
    public static let seedDateOfBirth = "2000-01-01"

    /// Creates verified accounts, checked like registration (`invalid_name`, `invalid_email`,
    /// `weak_password`, `email_taken`, and `duplicate_email` within the batch) before any is
    /// written. Each distinct password is hashed once and the hash shared: bcrypt per account
    /// would take minutes for thousands. Returns the records in the order given.
    ///
    /// Not atomic against a registration racing for the same address: the accounts before it stay.
    public func createVerifiedUsers(_ accounts: [SeedAccount]) async throws -> [UserRecord] {
        try Self.requireBatchSize(accounts.count)
        var seen = Set<String>()
        var cleaned: [SeedAccount] = []
        cleaned.reserveCapacity(accounts.count)
        for (index, account) in accounts.enumerated() {
            guard let name = AccountRules.cleanName(account.name) else {
                throw ParleyError.rule("invalid_name", "users[\(index)]: a name is 1 to \(AccountRules.maxNameLength) characters")
            }
            let email = AccountRules.normalizeEmail(account.email)
            guard AccountRules.isValidEmail(email) else {
                throw ParleyError.rule("invalid_email", "users[\(index)]: \(email) is not a valid e-mail address")
            }
            guard AccountRules.isAcceptablePassword(account.password) else {
                throw ParleyError.rule("weak_password", "users[\(index)]: " + AccountErrors.weakPassword.message)
            }
            guard seen.insert(email).inserted else {
                throw ParleyError.rule("duplicate_email", "users[\(index)]: \(email) appears more than once")
            }
            cleaned.append(SeedAccount(name: name, email: email, password: account.password))
        }
        let passwords = Set(cleaned.map(\.password))
        guard passwords.count <= Self.maxSeedPasswords else {
            throw ParleyError.rule("too_many_passwords", "At most \(Self.maxSeedPasswords) different passwords per request")
        }
        for account in cleaned {
            if try await store.user(email: account.email) != nil {
                throw ParleyError(.conflict, code: "email_taken", "\(account.email) already has an account")
            }
        }

        var hashes: [String: String] = [:]
        for password in passwords { hashes[password] = try await hasher.hash(password) }
        let now = clock.now()
        var created: [UserRecord] = []
        created.reserveCapacity(cleaned.count)
        for account in cleaned {
            let user = UserRecord(
                id: .generate(), email: account.email, name: account.name, status: "", passwordHash: hashes[account.password]!,
                dateOfBirth: Self.seedDateOfBirth, avatarHash: nil, emailVerifiedAt: now, createdAt: now, updatedAt: now)
            try await store.insertUser(user)
            created.append(user)
        }
        logger.notice("created verified users", metadata: ["count": "\(created.count)"])
        return created
    }

    /// Signs seeded accounts in without their passwords (one bcrypt per login would take a
    /// quarter second each): a session per account, named `deviceName`. Only for the operator's
    /// bulk creation, never reachable by users.
    public func openSeededSessions(for users: [UserRecord], deviceName: String) async throws -> [SessionGrant] {
        var grants: [SessionGrant] = []
        grants.reserveCapacity(users.count)
        for user in users { grants.append(try await openSession(user: user, deviceName: deviceName)) }
        return grants
    }

    static func requireBatchSize(_ count: Int) throws {
        guard (1...maxSeedBatch).contains(count) else {
            throw ParleyError.rule("invalid_count", "Between 1 and \(maxSeedBatch) users per request")
        }
    }
}

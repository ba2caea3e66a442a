import Foundation
import Logging
import ParleyCore
import ParleyFiles
import ParleyMail
import ParleySMS
import Synchronization

/// Users, credentials, sessions, verification and reset: everything about who someone is.
public final class AccountService: Sendable {
    let store: any AccountStore
    let files: FileStore
    let mail: any MailTransport
    let sms: any SMSTransport
    let tokens: AccessTokens
    let hasher: PasswordHasher
    let clock: any WallClock
    let settings: AccountSettings
    let logger: Logger
    let failedLoginsPerAccount: any RateCounter
    let failedLoginsPerAccountAndAddress: any RateCounter
    let attemptsPerAddress: any RateCounter
    let registrationsPerAddress: any RateCounter
    let registrations: any RateCounter
    let phoneCodesPerNumber: any RateCounter
    let phoneCodesPerAddress: any RateCounter
    let phoneCodes: any RateCounter
    /// Mails (verification, reset) per account and hour: past it they are silently not sent, so
    /// the answer stays the same and nobody's inbox can be flooded.
    let mailsPerAccount: any RateCounter
    /// Refreshes per session and hour (``AccountSettings/refreshesPerSessionPerHour``): each
    /// stores a token, kept until it expires so a copied one can be told (RFC 9700 §4.14.2).
    let refreshesPerSession: any RateCounter
    /// Told when sessions end (logout, password reset, a replayed refresh token), so open
    /// realtime connections of those devices can be closed.
    let sessionEndObservers = Mutex<[@Sendable (SessionsEnded) -> Void]>([])
    /// Told (and awaited) when an account is created for a phone number, so that what already
    /// names that number (quotes) can point at it before sign-up answers.
    let phoneJoinObservers = Mutex<[@Sendable (UserID, String) async throws -> Void]>([])

    public init(
        store: any AccountStore, files: FileStore, mail: any MailTransport, sms: any SMSTransport, tokens: AccessTokens,
        clock: any WallClock, settings: AccountSettings, logger: Logger,
        counters: (_ name: String, _ limit: Int, _ window: TimeInterval) -> any RateCounter = { RateLimiter(limit: $1, window: $2) }
    ) {
        self.store = store
        self.files = files
        self.mail = mail
        self.sms = sms
        self.tokens = tokens
        self.hasher = PasswordHasher(cost: settings.bcryptCost)
        self.clock = clock
        self.settings = settings
        self.logger = logger
        // Login and sign-up limits: in memory on one node, in the shared database across nodes.
        self.failedLoginsPerAccount = counters("login_failures_account", settings.loginFailuresPerAccount, settings.loginWindow)
        self.failedLoginsPerAccountAndAddress = counters("login_failures_pair", settings.loginFailuresPerAccountAndAddress, settings.loginWindow)
        self.attemptsPerAddress = counters("login_attempts_address", settings.loginAttemptsPerAddress, settings.loginWindow)
        self.registrationsPerAddress = counters("registrations_address", settings.registrationsPerAddressPerHour, 3600)
        self.registrations = counters("registrations", settings.registrationsPerHour, 3600)
        self.phoneCodesPerNumber = counters("phone_codes_number", settings.phoneCodesPerNumberPerHour, 3600)
        self.phoneCodesPerAddress = counters("phone_codes_address", settings.phoneCodesPerAddressPerHour, 3600)
        self.phoneCodes = counters("phone_codes", settings.phoneCodesPerHour, 3600)
        self.mailsPerAccount = counters("mails_account", 5, 3600)
        self.refreshesPerSession = counters("refreshes_session", AccountSettings.refreshesPerSessionPerHour, 3600)
    }

    /// What a new user fills in.
    public struct Registration: Sendable {
        public var name: String
        public var email: String
        public var password: String
        public var dateOfBirth: String
        public var avatar: [UInt8]?

        public init(name: String, email: String, password: String, dateOfBirth: String, avatar: [UInt8]? = nil) {
            self.name = name
            self.email = email
            self.password = password
            self.dateOfBirth = dateOfBirth
            self.avatar = avatar
        }
    }

    /// Removes refresh, e-mail and phone tokens past their expiry: spent refresh tokens are kept
    /// until then (a copied one presented again ends its session), not for ever.
    @discardableResult
    public func sweepExpiredTokens() async throws -> Int {
        let removed = try await store.deleteExpiredTokens(before: clock.now())
        if removed > 0 { logger.info("expired tokens removed", metadata: ["count": "\(removed)"]) }
        return removed
    }

    /// Deletes accounts never verified within `unverifiedAccountLifetime`; how many went.
    @discardableResult
    public func sweepUnverified() async throws -> Int {
        let removed = try await store.deleteUnverified(registeredBefore: clock.now().addingTimeInterval(-settings.unverifiedAccountLifetime))
        if removed > 0 { logger.info("unverified accounts expired", metadata: ["count": "\(removed)"]) }
        return removed
    }

    /// Creates an account. `clientAddress` counts against the registration limits (per address
    /// and from everywhere together, per hour): past them, `rate_limited` before any work.
    public func register(_ form: Registration, clientAddress: String? = nil) async throws -> UserRecord {
        try await register(form, admitted: try await admitRegistration(clientAddress: clientAddress))
    }

    /// Proof that a registration was counted against its limits, so that it is counted once.
    public struct RegistrationAdmission: Sendable { fileprivate init() {} }

    /// Counts one registration from `clientAddress` (per address and from everywhere together, per
    /// hour), or throws `rate_limited`. The edge asks this before it reads a body that carries a
    /// file, so a limited client stages nothing.
    public func admitRegistration(clientAddress: String?) async throws -> RegistrationAdmission {
        let now = clock.now()
        let addressKey = AddressKey.of(clientAddress)
        if let wait = try await firstRetryAfter([(registrationsPerAddress, addressKey), (registrations, "all")], now: now) {
            logger.notice("registration rate limited", metadata: ["address": "\(clientAddress ?? "-")"])
            throw AccountErrors.rateLimited(retryAfter: wait)
        }
        try await registrationsPerAddress.record(addressKey, now: now)
        try await registrations.record("all", now: now)
        return RegistrationAdmission()
    }

    /// Creates an unverified account and mails the verification link; the registration was
    /// already counted (`admitRegistration`).
    public func register(_ form: Registration, admitted: RegistrationAdmission) async throws -> UserRecord {
        guard let name = AccountRules.cleanName(form.name) else { throw AccountErrors.invalidName }
        let email = AccountRules.normalizeEmail(form.email)
        guard AccountRules.isValidEmail(email) else { throw AccountErrors.invalidEmail }
        guard AccountRules.isAcceptablePassword(form.password) else { throw AccountErrors.weakPassword }
        let now = clock.now()
        guard let birth = AccountRules.CalendarDate(form.dateOfBirth), birth <= AccountRules.CalendarDate(now) else {
            throw AccountErrors.invalidDateOfBirth
        }
        guard AccountRules.age(born: birth, on: AccountRules.CalendarDate(now)) >= AccountRules.minimumAge else {
            throw AccountErrors.tooYoung
        }
        if try await store.user(email: email) != nil { throw AccountErrors.emailTaken }
        let avatarHash = try form.avatar.map { try storeAvatar($0) }
        let user = UserRecord(
            id: .generate(), email: email, phoneNumber: nil, name: name, status: "", passwordHash: try await hasher.hash(form.password),
            dateOfBirth: form.dateOfBirth, avatarHash: avatarHash?.hex, emailVerifiedAt: nil, createdAt: now, updatedAt: now)
        try await store.insertUser(user)
        logger.info("registered", metadata: ["user": "\(user.id)"])
        try await sendVerification(to: user)
        return user
    }

    /// Marks the address of the token's user verified. Single use.
    public func verifyEmail(token: String) async throws -> UserRecord {
        let now = clock.now()
        guard let record = try await store.consumeEmailToken(digest: SecretToken.digest(of: token), purpose: .verify, at: now),
              var user = try await store.user(id: record.userID)
        else { throw AccountErrors.invalidToken }
        try await store.markVerified(id: user.id, at: now)
        user.emailVerifiedAt = user.emailVerifiedAt ?? now
        logger.info("e-mail verified", metadata: ["user": "\(user.id)"])
        return user
    }

    /// Mails a new verification link if the address belongs to an unverified account.
    /// Answers the same either way, and at once: the mail goes out in the background.
    public func resendVerification(email: String) async {
        let email = AccountRules.normalizeEmail(email)
        guard let user = try? await store.user(email: email), !user.isVerified else { return }
        Task { [self] in try? await sendVerification(to: user) }
    }

    func sendVerification(to user: UserRecord) async throws {
        let token = SecretToken.generate()
        try await store.insertEmailToken(
            EmailTokenRecord(digest: token.digest, userID: user.id, purpose: .verify,
                             expiresAt: clock.now().addingTimeInterval(settings.verificationTokenLifetime)),
            replacingPurposeTokens: false)
        let link = "\(settings.publicBaseURL)/v1/auth/verify?token=\(token.value)"
        deliver(AccountMail.verification(to: user, link: link), kind: "verification")
    }

    /// Sends in the background: a slow or failing mail server never holds up or fails a request.
    func deliver(_ message: MailMessage, kind: String) {
        let mail = self.mail, logger = self.logger, counter = mailsPerAccount
        let now = clock.now()
        Task {
            do {
                if try await counter.take(message.to, now: now) != nil {
                    logger.notice("mail not sent: too many for this address", metadata: ["kind": "\(kind)"])
                    return
                }
                try await mail.send(message)
            } catch {
                logger.error("mail not sent", metadata: ["kind": "\(kind)", "error": "\(error)"])
            }
        }
    }

    /// A new path in the avatar store's staging folder, for an avatar upload to stream to (what
    /// stopped uploads left there is swept now and then as they start).
    public func avatarStagingPath() -> String {
        files.sweepStagingIfDue()
        return files.newStagingPath()
    }

    /// The bytes of an avatar staged on disk (at most `maxAvatarBytes`, which the upload enforced).
    public func stagedAvatar(_ staged: StagedFile) throws -> [UInt8] {
        guard staged.size <= settings.maxAvatarBytes else { throw AccountErrors.imageTooLarge }
        guard let data = FileManager.default.contents(atPath: staged.path) else { throw AccountErrors.unsupportedImage }
        return Array(data)
    }

    func storeAvatar(_ bytes: [UInt8]) throws -> ContentHash {
        guard bytes.count <= settings.maxAvatarBytes else { throw AccountErrors.imageTooLarge }
        guard let type = MediaType.sniff(bytes), [.jpeg, .png, .heic].contains(type) else {
            throw AccountErrors.unsupportedImage
        }
        return try files.put(bytes)
    }
}

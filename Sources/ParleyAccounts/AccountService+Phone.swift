import Crypto
import Foundation
import ParleyCore
import ParleySMS

extension AccountService {
    /// What someone signing up by phone fills in.
    public struct PhoneRegistration: Sendable {
        public var phoneNumber: String
        public var code: String
        public var password: String
        public var firstName: String
        public var lastName: String
        public var deviceName: String?

        public init(phoneNumber: String, code: String, password: String, firstName: String, lastName: String, deviceName: String? = nil) {
            self.phoneNumber = phoneNumber
            self.code = code
            self.password = password
            self.firstName = firstName
            self.lastName = lastName
            self.deviceName = deviceName
        }
    }

    /// The number as E.164, or `invalid_phone_number`.
    public func normalizePhoneNumber(_ text: String, defaultCountryCode: String? = nil) throws -> PhoneNumber {
        guard let number = PhoneNumber(text, defaultCountryCode: defaultCountryCode ?? settings.defaultCountryCode) else {
            throw AccountErrors.invalidPhoneNumber
        }
        return number
    }

    /// Texts a sign-up code to a number that has no account yet. Limited per number, per client
    /// address and from everywhere together (`rate_limited`); `phone_taken` when the number
    /// already signs someone in.
    /// Returns how long the code lives, in seconds.
    public func requestPhoneCode(phoneNumber text: String, clientAddress: String?) async throws -> Int {
        let number = try normalizePhoneNumber(text)
        let now = clock.now()
        let numberKey = "number:" + number.e164, addressKey = AddressKey.of(clientAddress)
        if let wait = try await firstRetryAfter(
            [(phoneCodesPerNumber, numberKey), (phoneCodesPerAddress, addressKey), (phoneCodes, "all")], now: now) {
            logger.notice("phone code rate limited", metadata: ["address": "\(clientAddress ?? "-")"])
            throw AccountErrors.rateLimited(retryAfter: wait)
        }
        if try await store.user(phoneNumber: number.e164) != nil { throw AccountErrors.phoneTaken }
        try await phoneCodesPerNumber.record(numberKey, now: now)
        try await phoneCodesPerAddress.record(addressKey, now: now)
        try await phoneCodes.record("all", now: now)
        let code = Self.newPhoneCode()
        try await store.insertPhoneCode(PhoneCodeRecord(
            phoneNumber: number.e164, digest: Self.phoneCodeDigest(code, number: number.e164),
            expiresAt: now.addingTimeInterval(settings.phoneCodeLifetime)))
        let minutes = max(Int(settings.phoneCodeLifetime / 60), 1)
        do {
            // Awaited, unlike mail: without the code the person cannot go on, so they should hear
            // at once that it did not go out.
            try await sms.send(SMSMessage(to: number.e164, text: "\(code) is your Parley code. It works once, within \(minutes) minutes."))
        } catch {
            logger.error("SMS not sent", metadata: ["error": "\(error)"])
            throw AccountErrors.smsUnavailable
        }
        return Int(settings.phoneCodeLifetime)
    }

    /// Creates an account for a number proven by its texted code and signs this device in. The
    /// fields are checked before the code, so a weak password does not spend it.
    public func registerPhone(_ form: PhoneRegistration, clientAddress: String? = nil) async throws -> SessionGrant {
        let number = try normalizePhoneNumber(form.phoneNumber)
        guard let first = AccountRules.cleanName(form.firstName), let last = AccountRules.cleanName(form.lastName),
              let name = AccountRules.cleanName(first + " " + last)
        else { throw AccountErrors.invalidName }
        guard AccountRules.isAcceptablePassword(form.password) else { throw AccountErrors.weakPassword }
        let code = form.code.filter { !$0.isWhitespace }
        let now = clock.now()
        switch try await store.checkPhoneCode(phoneNumber: number.e164, digest: Self.phoneCodeDigest(code, number: number.e164),
                                              at: now, maxAttempts: settings.phoneCodeAttempts) {
        case .accepted: break
        case .unknown, .wrong: throw AccountErrors.invalidCode
        case .locked: throw AccountErrors.codeLocked
        }
        let user = UserRecord(
            id: .generate(), email: nil, phoneNumber: number.e164, name: name, status: "",
            passwordHash: try await hasher.hash(form.password), dateOfBirth: "", avatarHash: nil,
            emailVerifiedAt: now, createdAt: now, updatedAt: now)
        try await store.insertUser(user)
        logger.info("registered by phone", metadata: ["user": "\(user.id)"])
        for observer in phoneJoinObservers.withLock({ $0 }) {
            do { try await observer(user.id, number.e164) } catch {
                logger.error("phone join not passed on", metadata: ["user": "\(user.id)", "error": "\(error)"])
            }
        }
        return try await openSession(user: user, deviceName: form.deviceName)
    }

    /// Calls `action` (and awaits it) whenever an account is created for a phone number.
    public func onPhoneJoined(_ action: @escaping @Sendable (UserID, String) async throws -> Void) {
        phoneJoinObservers.withLock { $0.append(action) }
    }

    /// Six random digits.
    static func newPhoneCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
    }

    /// Codes are stored as a digest bound to their number, never as they were sent.
    static func phoneCodeDigest(_ code: String, number: String) -> String {
        SHA256.hash(data: Data("\(number):\(code)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

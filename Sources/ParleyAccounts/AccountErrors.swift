import ParleyCore

/// The stable codes Accounts answers with (API.md, "Auth and accounts").
public enum AccountErrors {
    public static let emailTaken = ParleyError(.conflict, code: "email_taken", "An account with this e-mail address already exists")
    public static let invalidEmail = ParleyError.rule("invalid_email", "That is not a valid e-mail address")
    public static let weakPassword = ParleyError.rule(
        "weak_password", "Passwords are \(AccountRules.passwordLength.lowerBound) to \(AccountRules.passwordLength.upperBound) characters")
    public static let tooYoung = ParleyError.rule("too_young", "You must be at least \(AccountRules.minimumAge) years old")
    public static let invalidDateOfBirth = ParleyError.rule("invalid_date_of_birth", "dateOfBirth must be a real date as YYYY-MM-DD, not in the future")
    public static let invalidName = ParleyError.rule("invalid_name", "A name is 1 to \(AccountRules.maxNameLength) characters")
    public static let invalidStatus = ParleyError.rule("invalid_status", "A status is at most \(AccountRules.maxStatusLength) characters")
    public static let invalidCredentials = ParleyError(.unauthenticated, code: "invalid_credentials", "Wrong e-mail, phone number or password")
    public static let emailNotVerified = ParleyError(.forbidden, code: "email_not_verified", "Verify your e-mail address before logging in")
    public static let invalidToken = ParleyError.rule("invalid_token", "This link or code is invalid, used or expired")
    public static let invalidRefreshToken = ParleyError(.unauthenticated, code: "invalid_refresh_token", "The refresh token is invalid or expired")
    public static let refreshTokenReused = ParleyError(
        .unauthenticated, code: "refresh_token_reused", "This refresh token was already used; the session has been ended")
    public static let sessionEnded = ParleyError(.unauthenticated, code: "session_ended", "This session has ended; log in again")
    public static let queryTooShort = ParleyError.rule("query_too_short", "Search for at least \(AccountRules.minimumQueryLength) characters")
    public static let wrongPassword = ParleyError(.forbidden, code: "wrong_password", "The password is not correct")
    public static let userNotFound = ParleyError(.notFound, code: "user_not_found", "No such user")
    public static let unsupportedImage = ParleyError(.unsupportedMedia, code: "unsupported_media_type", "Avatars are JPEG, PNG or HEIC images")
    public static let imageTooLarge = ParleyError(.tooLarge, code: "payload_too_large", "Avatars are at most 5 MiB")

    public static let phoneTaken = ParleyError(.conflict, code: "phone_taken", "An account with this phone number already exists")
    public static let invalidPhoneNumber = ParleyError.rule(
        "invalid_phone_number", "That is not a phone number: write it with its country code, like +14155552671")
    public static let invalidCode = ParleyError.rule("invalid_code", "This code is wrong, used or expired")
    public static let codeLocked = ParleyError.rule("code_locked", "This code was entered wrongly too often; ask for a new one")
    public static let smsUnavailable = ParleyError(.unavailable, code: "sms_unavailable", "The code could not be sent; try again shortly")

    public static let emailNotUsed = ParleyError.rule("email_not_used", "This account signs in by phone number, not by e-mail")
    public static let sameEmail = ParleyError.rule("same_email", "That is already this account's address")

    public static func rateLimited(retryAfter: Int) -> ParleyError { .rateLimited(retryAfter: retryAfter) }
}

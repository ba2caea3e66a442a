import Foundation

/// The Accounts knobs, read from configuration by the app.
public struct AccountSettings: Sendable {
    /// Public base URL of this server, for links in mail (`https://chat.example.com`).
    public var publicBaseURL: String
    /// Where the password-reset mail points; `{token}` is replaced (a link the iOS app opens).
    public var passwordResetLink: String
    /// A second link in the same mail, for a computer: the web client's reset screen when Parley
    /// serves one (`{token}` replaced). Nil: the mail carries the app link only.
    public var browserPasswordResetLink: String?
    public var bcryptCost: UInt8
    public var accessTokenLifetime: TimeInterval
    public var refreshTokenLifetime: TimeInterval
    /// Refreshes one session may make per hour: a client refreshes as its access token runs out
    /// (every 15 minutes by default); a loop would store a token per turn.
    public static let refreshesPerSessionPerHour = 60
    /// An account whose address was never verified is deleted this long after registering, and
    /// its address is free again (someone else may have typed it).
    public var unverifiedAccountLifetime: TimeInterval = 7 * 24 * 3600
    /// Registrations allowed per client address, and from everywhere together, per hour.
    public var registrationsPerAddressPerHour = 20
    public var registrationsPerHour = 1000
    public var verificationTokenLifetime: TimeInterval
    public var resetTokenLifetime: TimeInterval
    public var maxAvatarBytes: Int
    /// Failed logins allowed per account from one client address within `loginWindow`: five
    /// wrong guesses from elsewhere do not lock the owner out.
    public var loginFailuresPerAccountAndAddress: Int
    /// Failed logins allowed per account from all addresses together within `loginWindow`
    /// (guessing spread over many addresses).
    public var loginFailuresPerAccount: Int
    /// Login attempts allowed per client address within `loginWindow`.
    public var loginAttemptsPerAddress: Int
    public var loginWindow: TimeInterval
    /// Sign-up by phone: how long a texted code lives, how many wrong tries lock it, and how
    /// many codes go to one number, and from one client address, per hour.
    public var phoneCodeLifetime: TimeInterval = 600
    public var phoneCodeAttempts = 5
    /// How long the code mailed to a new e-mail address works (`auth.emailChangeCodeSeconds`).
    public var emailChangeCodeLifetime: TimeInterval = 3600
    public var phoneCodesPerNumberPerHour = 5
    public var phoneCodesPerAddressPerHour = 20
    /// Codes texted per hour from everywhere together: each costs money at the provider, and
    /// numbers and addresses are many.
    public var phoneCodesPerHour = 1000
    /// The country calling code a number written without one is read in (`"1"`, `"44"`); nil:
    /// numbers must start with `+` or `00`.
    public var defaultCountryCode: String?

    public init(
        publicBaseURL: String = "http://127.0.0.1:8080",
        passwordResetLink: String = "parley://password-reset?token={token}",
        bcryptCost: UInt8 = 12,
        accessTokenLifetime: TimeInterval = 15 * 60,
        refreshTokenLifetime: TimeInterval = 60 * 24 * 3600,
        verificationTokenLifetime: TimeInterval = 48 * 3600,
        resetTokenLifetime: TimeInterval = 3600,
        maxAvatarBytes: Int = 5 * 1024 * 1024,
        loginFailuresPerAccountAndAddress: Int = 5,
        loginFailuresPerAccount: Int = 100,
        loginAttemptsPerAddress: Int = 30,
        loginWindow: TimeInterval = 15 * 60
    ) {
        self.publicBaseURL = publicBaseURL
        self.passwordResetLink = passwordResetLink
        self.bcryptCost = bcryptCost
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.verificationTokenLifetime = verificationTokenLifetime
        self.resetTokenLifetime = resetTokenLifetime
        self.maxAvatarBytes = maxAvatarBytes
        self.loginFailuresPerAccountAndAddress = loginFailuresPerAccountAndAddress
        self.loginFailuresPerAccount = loginFailuresPerAccount
        self.loginAttemptsPerAddress = loginAttemptsPerAddress
        self.loginWindow = loginWindow
    }
}

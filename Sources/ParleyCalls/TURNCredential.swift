import Crypto
import Foundation
import ParleyCore

/// A time-limited TURN credential in the shared-secret scheme ("TURN REST API",
/// draft-uberti-behave-turn-rest-00 §2.2) that coturn checks with `use-auth-secret`:
/// the username is `<expiry unix time>:<user id>`, the password the base64 of
/// HMAC-SHA1(secret, username). coturn recomputes the password from the username, so Parley and
/// the TURN server share only the secret, and refuses a username whose expiry has passed.
public struct TURNCredential: Sendable, Hashable {
    public let username: String
    public let password: String

    public init(user: UserID, expiry: Date, secret: String) {
        let username = "\(Int64(expiry.timeIntervalSince1970.rounded(.down))):\(user.rawValue)"
        self.init(username: username, secret: secret)
    }

    /// The password for any username; `init(user:expiry:secret:)` makes the username.
    public init(username: String, secret: String) {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        self.username = username
        self.password = Data(mac).base64EncodedString()
    }
}

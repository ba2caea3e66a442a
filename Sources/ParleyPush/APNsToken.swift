import Crypto
import Foundation

/// The provider authentication token APNs takes in `authorization: bearer …`: a JWT signed with
/// ES256 by the team's `.p8` key, header `{alg: ES256, kid}`, claims `{iss: team id, iat}`.
///
/// APNs refuses a token older than an hour (403 `ExpiredProviderToken`) and one renewed more
/// often than every 20 minutes (429 `TooManyProviderTokenUpdates`), so ``APNsTokenCache`` reuses
/// one for ``renewalAge``.
public struct APNsToken: Sendable, Hashable {
    /// The compact JWS: `base64url(header).base64url(claims).base64url(r‖s)`.
    public let jwt: String
    /// The `iat` claim, whole seconds.
    public let issuedAt: Date

    /// How long a token is used before a new one is signed: under APNs' hour, with room for
    /// clock skew.
    public static let renewalAge: TimeInterval = 50 * 60

    struct Header: Codable, Equatable {
        var alg: String
        var kid: String
    }

    struct Claims: Codable, Equatable {
        var iss: String
        var iat: Int
    }

    /// Signs a token issued at `now` (rounded down to the second, as `iat` is).
    public static func sign(keyID: String, teamID: String, issuedAt now: Date,
                            with key: P256.Signing.PrivateKey) throws -> APNsToken {
        let iat = Int(now.timeIntervalSince1970.rounded(.down))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let header = try encoder.encode(Header(alg: "ES256", kid: keyID)).base64URLEncoded
        let claims = try encoder.encode(Claims(iss: teamID, iat: iat)).base64URLEncoded
        let signingInput = header + "." + claims
        // JWS (RFC 7515 §A.3) wants the raw r‖s, not the DER of X9.62.
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return APNsToken(jwt: signingInput + "." + signature.base64URLEncoded,
                         issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)))
    }

    /// Whether the token is old enough to be replaced at `now`.
    public func isDue(at now: Date) -> Bool {
        now.timeIntervalSince(issuedAt) >= Self.renewalAge
    }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    var base64URLEncoded: String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

import Foundation
import JWTKit
import ParleyCore

/// Who an access token speaks for.
public struct Principal: Sendable, Equatable {
    public let userID: UserID
    public let sessionID: SessionID

    public init(userID: UserID, sessionID: SessionID) {
        self.userID = userID
        self.sessionID = sessionID
    }
}

/// Short-lived access tokens: HS256 JWTs naming the user (`sub`) and the session (`sid`).
/// Expiry is checked against the injected clock, not the machine's.
public struct AccessTokens: Sendable {
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var sid: String
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private let keys: JWTKeyCollection
    private let clock: any WallClock
    public let lifetime: TimeInterval

    public init(secret: String, lifetime: TimeInterval, clock: any WallClock) async {
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        self.clock = clock
        self.lifetime = lifetime
    }

    public func issue(for principal: Principal) async throws -> String {
        let now = clock.now()
        return try await keys.sign(Claims(
            sub: SubjectClaim(value: principal.userID.rawValue), sid: principal.sessionID.rawValue,
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(lifetime))))
    }

    /// The principal of a well-signed, unexpired token; nil otherwise.
    public func verify(_ token: String) async -> Principal? {
        guard let claims = try? await keys.verify(token, as: Claims.self),
              claims.exp.value > clock.now()
        else { return nil }
        return Principal(userID: UserID(rawValue: claims.sub.value), sessionID: SessionID(rawValue: claims.sid))
    }
}

import Crypto
import Foundation
import ParleyCore
import Synchronization

/// The one provider token in use: signed on first use, reused for ``APNsToken/renewalAge``, and
/// renewed at once when APNs calls it expired or invalid.
public final class APNsTokenCache: Sendable {
    private let key: P256.Signing.PrivateKey
    private let keyID: String
    private let teamID: String
    private let clock: any WallClock
    private let state = Mutex<(token: APNsToken?, issued: Int)>((nil, 0))

    public init(key: P256.Signing.PrivateKey, keyID: String, teamID: String, clock: any WallClock = SystemWallClock()) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
    }

    /// Reads the `.p8` file (PKCS#8 PEM, as Apple hands it out; SEC1 `EC PRIVATE KEY` is taken too).
    public convenience init(keyFile: String, keyID: String, teamID: String, clock: any WallClock = SystemWallClock()) throws {
        let pem: String
        do {
            pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        } catch {
            throw APNsKeyError.unreadable(path: keyFile)
        }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw APNsKeyError.notP256(path: keyFile)
        }
        self.init(key: key, keyID: keyID, teamID: teamID, clock: clock)
    }

    /// The token to send now: the current one, or a new one when it is due.
    public func current() throws -> APNsToken {
        let now = clock.now()
        return try state.withLock { state in
            if let token = state.token, !token.isDue(at: now) { return token }
            let token = try APNsToken.sign(keyID: keyID, teamID: teamID, issuedAt: now, with: key)
            state = (token, state.issued + 1)
            return token
        }
    }

    /// APNs refused `rejected` (403 `ExpiredProviderToken` / `InvalidProviderToken`): drop it, so the
    /// next ``current()`` signs a new one. A token already replaced by a concurrent push is left alone.
    public func renew(rejected: APNsToken) {
        state.withLock { state in
            if state.token == rejected { state.token = nil }
        }
    }

    /// How many tokens were signed so far.
    public var issuedCount: Int { state.withLock { $0.issued } }
}

/// Why the provider key could not be loaded.
public enum APNsKeyError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String)
    case notP256(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read the APNs key file \(path)"
        case .notP256(let path): "the APNs key file \(path) is not a PEM EC P-256 private key (.p8)"
        }
    }
}

import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's blocking-work pool: at cost 12 a hash takes a good part of a second,
/// which must not sit on a cooperative thread.
public struct PasswordHasher: Sendable {
    public let cost: UInt8

    public init(cost: UInt8) { self.cost = cost }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Spends what a verification would, for logins to addresses that have no account, so that
    /// the answer's timing does not tell which addresses are registered.
    public func burnTime(_ password: String) async {
        _ = try? await hash(password)
    }
}

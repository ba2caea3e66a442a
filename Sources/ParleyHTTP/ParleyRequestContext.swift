import Hummingbird
import NIOCore
import ParleyAccounts
import ParleyCore

/// Per-request state: the client's address (for rate limits) and, behind `BearerAuthMiddleware`,
/// who is asking.
public struct ParleyRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer, or the client a trusted proxy names (`ClientAddressMiddleware`).
    public var clientAddress: String?
    public var principal: Principal?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
        principal = nil
    }

    /// The principal, for routes behind the auth middleware.
    public func requirePrincipal() throws -> Principal {
        guard let principal else { throw ParleyError.unauthenticated }
        return principal
    }
}

import Hummingbird
import Synchronization

/// The routes the router serves, so that a request for a known path with another method gets
/// 405 and an `Allow` header (RFC 9110 §15.5.6) instead of Hummingbird's 404.
public final class RouteIndex: Sendable {
    private let routes = Mutex<[(path: RouterPath, method: HTTPRequest.Method)]>([])

    public init() {}

    /// Takes the router's routes once they are all registered.
    func load(_ descriptions: [Router<ParleyRequestContext>.RouteDescription]) {
        routes.withLock { $0 = descriptions.map { ($0.path, $0.method) } }
    }

    /// The methods served at `path` (a request path, no query), sorted; empty when none is.
    public func methods(at path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let found = routes.withLock { routes in
            routes.filter { route in
                route.path.components.count == segments.count
                    && zip(route.path.components, segments).allSatisfy { element, segment in element ~= segment }
            }.map(\.method)
        }
        return Array(Set(found)).sorted { $0.rawValue < $1.rawValue }
    }
}

import Hummingbird
import Synchronization

/// The routes the router serves, so that a request for a known path with another method gets
/// 405 and an `Allow` header (RFC 9110 §15.5.6) instead of Hummingbird's 404.
///
/// A request path resolves to one route path the way Hummingbird's trie resolves it: segment by
/// segment, a constant before a capture, falling back only when the rest of the path does not
/// match. `/v1/stories/feed` is the constant route, never `/v1/stories/{id}` beside it, so its
/// `Allow` lists what `/v1/stories/feed` takes and nothing of the `{id}` route.
public final class RouteIndex: Sendable {
    private let root = Mutex(Node())

    public init() {}

    /// Takes the router's routes once they are all registered.
    func load(_ descriptions: [Router<ParleyRequestContext>.RouteDescription]) {
        var node = Node()
        for description in descriptions {
            node.insert(description.path.components[...], method: description.method)
        }
        root.withLock { $0 = node }
    }

    /// The methods served at `path` (a request path, no query), sorted; empty when none is.
    public func methods(at path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let found = root.withLock { $0.resolve(segments[...]) ?? [] }
        return Array(found).sorted { $0.rawValue < $1.rawValue }
    }

    /// One segment of the route paths, with the methods of the route that ends here.
    struct Node: Sendable {
        var element: RouterPath.Element?
        var methods: Set<HTTPRequest.Method> = []
        var children: [Node] = []

        mutating func insert(_ components: ArraySlice<RouterPath.Element>, method: HTTPRequest.Method) {
            guard let first = components.first else {
                methods.insert(method)
                return
            }
            if let index = children.firstIndex(where: { $0.element == first }) {
                children[index].insert(components.dropFirst(), method: method)
            } else {
                var child = Node(element: first)
                child.insert(components.dropFirst(), method: method)
                children.append(child)
                // Hummingbird tries the most specific element first; a stable sort keeps the rest in order.
                children = children.enumerated().sorted { lhs, rhs in
                    let (left, right) = (Self.priority(lhs.element.element), Self.priority(rhs.element.element))
                    return left != right ? left > right : lhs.offset < rhs.offset
                }.map(\.element)
            }
        }

        /// The methods of the route `segments` resolves to: on the last segment the first child that
        /// matches decides (as in Hummingbird's trie), before it a child whose subtree does not match
        /// the rest gives way to the next one.
        func resolve(_ segments: ArraySlice<Substring>) -> Set<HTTPRequest.Method>? {
            guard let segment = segments.first else { return methods }
            for child in children where child.element.map({ $0 ~= segment }) == true {
                if segments.count == 1 { return child.methods }
                if let found = child.resolve(segments.dropFirst()) { return found }
            }
            return nil
        }

        /// Hummingbird's order: a constant, then a capture, then wildcards.
        static func priority(_ element: RouterPath.Element?) -> Int {
            guard let element else { return 0 }
            let text = element.description
            if element == .path(Substring(text)) { return 0 }
            if text.hasPrefix("{"), text.hasSuffix("}"), element == .capture(text.dropFirst().dropLast()) { return -3 }
            if text.hasPrefix(":"), element == .capture(text.dropFirst()) { return -3 }
            return -4
        }
    }
}

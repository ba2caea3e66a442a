import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The proxies whose word about the client's address is taken (`http.trustedProxies`):
/// addresses or CIDR blocks, IPv4 and IPv6 (`10.0.0.0/8`, `::1`, `fd00::/8`).
public struct TrustedProxies: Sendable, Equatable {
    struct Block: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var left = prefix
            for (a, b) in zip(address, bytes) where left > 0 {
                let bits = min(8, left)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != b & mask { return false }
                left -= bits
            }
            return true
        }
    }

    let blocks: [Block]

    public static let none = TrustedProxies(blocks: [])

    init(blocks: [Block]) { self.blocks = blocks }

    /// Parses the configured entries; an entry that is neither an address nor a CIDR block is
    /// refused (a typo must not silently trust nobody, or everybody).
    public init(_ entries: [String]) throws {
        blocks = try entries.map { entry in
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(parts[0]) else { throw TrustedProxiesError.invalid(entry) }
            let width = bytes.count * 8
            guard let prefix = parts.count == 2 ? Int(parts[1]) : width, (0...width).contains(prefix) else {
                throw TrustedProxiesError.invalid(entry)
            }
            return Block(bytes: bytes, prefix: prefix)
        }
    }

    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The bytes of an IPv4 or IPv6 address (an IPv4-mapped IPv6 address as IPv4).
    static func bytes(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, trimmed, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
            return bytes
        }
        return nil
    }

    /// The client's address for a request whose TCP peer is `peer`: the peer itself, unless it is
    /// a trusted proxy; then the right-most address of `X-Forwarded-For` that is not a trusted
    /// proxy (the one the nearest untrusted hop gave; anything left of it may be forged).
    public func clientAddress(peer: String?, headers: HTTPFields) -> String? {
        guard let peer, contains(peer) else { return peer }
        let hops = headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !contains(hop) {
            return Self.bytes(hop) != nil ? hop : peer
        }
        return hops.first ?? peer
    }
}

enum TrustedProxiesError: Error, CustomStringConvertible {
    case invalid(String)
    var description: String {
        switch self { case .invalid(let entry): "http.trustedProxies: \"\(entry)\" is neither an IP address nor a CIDR block" }
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// Sets the request's client address (for rate limits and logs) from a trusted proxy's
/// `X-Forwarded-For`, or leaves the TCP peer's.
struct ClientAddressMiddleware: RouterMiddleware {
    let trusted: TrustedProxies

    func handle(_ request: Request, context: ParleyRequestContext, next: (Request, ParleyRequestContext) async throws -> Response) async throws -> Response {
        guard !trusted.blocks.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = trusted.clientAddress(peer: context.clientAddress, headers: request.headers)
        return try await next(request, context)
    }
}

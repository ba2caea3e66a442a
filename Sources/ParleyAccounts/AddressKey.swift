import Foundation

/// The key a client address is counted under by the per-address limits (logins, registrations,
/// phone codes): an IPv4 address as it is, an IPv6 address by its /64. One subscriber's network
/// is a /64 at the least (RFC 6177), and a client picks any of its 2^64 addresses at will — by
/// the whole address, each new one would bring a fresh share.
enum AddressKey {
    static func of(_ address: String?) -> String {
        guard let address else { return "address:unknown" }
        let trimmed = address.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        var v6 = in6_addr()
        guard trimmed.contains(":"), inet_pton(AF_INET6, trimmed, &v6) == 1 else { return "address:" + trimmed }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return "address:" + bytes[12...].map(String.init).joined(separator: ".")   // IPv4-mapped
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return "address:" + groups.joined(separator: ":") + "::/64"
    }
}
